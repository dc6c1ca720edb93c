"""Alembic's environment. ``app.migrate`` runs it with the connection it opened (and
locked): there is no alembic.ini and no offline mode."""

from __future__ import annotations

from alembic import context

from app.tables import Base

connection = context.config.attributes.get("connection")
if connection is None or context.is_offline_mode():
    raise RuntimeError("run the migrations through app.migrate (drill db upgrade)")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    # SQLite cannot ALTER most things: autogenerate writes copy-and-move batches for it.
    render_as_batch=connection.dialect.name == "sqlite",
)
# The caller's transaction, if it holds one (app.migrate does): one commit for it all.
with context.begin_transaction():
    context.run_migrations()
