"""Schema migrations: Alembic, configured in code, run at start-up and by ``drill db upgrade``.

The environment and the revisions are in ``app/migrations``. On PostgreSQL the upgrade
holds an advisory lock, so API nodes that start at the same moment take turns: the first
one migrates, the others find the schema at the head. A database created before there
were migrations (its tables exist, ``alembic_version`` does not) is stamped at
``LEGACY_REVISION``, the schema that code made, and upgraded from there.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, func, inspect, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
LEGACY_REVISION = "0001"  # what Base.metadata.create_all made before migrations
# Alembic's ``context`` is a module global: one upgrade at a time in a process.
_alembic = threading.Lock()


@dataclass(frozen=True)
class Upgrade:
    """What ``upgrade`` found and did."""

    url: str  # with the password hidden
    before: str | None  # the revision found (None: a new or a legacy database)
    after: str
    legacy: bool  # tables from before migrations were found and stamped

    def describe(self) -> str:
        if self.legacy:
            done = f"made before migrations: stamped {LEGACY_REVISION}, then upgraded"
        elif self.before is None:
            done = "created"
        elif self.before != self.after:
            done = f"upgraded from {self.before}"
        else:
            done = "already up to date"
        return f"database at {self.url} is at revision {self.after} ({done})"


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration without an alembic.ini; ``env.py`` runs on ``connection``.

    A new revision: ``alembic.command.revision(config(connection), message, autogenerate=True)``
    with a connection to a database at the head.
    """
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


@lru_cache(maxsize=1)
def head() -> str:
    """The newest revision in app/migrations."""
    found = ScriptDirectory.from_config(config()).get_current_head()
    if found is None:
        raise RuntimeError(f"no migrations in {MIGRATIONS}")
    return found


def lock_key(name: str) -> int:
    """A signed 64-bit advisory lock key for ``name`` (what pg_advisory_lock takes)."""
    digest = hashlib.blake2b(name.encode(), digest_size=8, person=b"drill-lock").digest()
    return int.from_bytes(digest, "big", signed=True)


# The advisory lock of the upgrade: the same key on every node.
MIGRATION_LOCK = lock_key("migrations")


@contextmanager
def advisory_lock(engine: Engine, key: int) -> Iterator[None]:
    """On PostgreSQL, hold ``pg_advisory_lock(key)`` until the block ends, on a connection
    of its own (a session lock: commits inside the block do not release it, and it goes
    with the connection if this process dies). Elsewhere nothing: one machine, one file."""
    if engine.dialect.name != "postgresql":
        yield
        return
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(select(func.pg_advisory_lock(key)))
        try:
            yield
        finally:
            try:
                connection.execute(select(func.pg_advisory_unlock(key)))
            except DBAPIError:
                connection.invalidate()  # closing the session releases the lock too


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(target: str | Engine) -> Upgrade:
    """Bring the database at ``target`` (a URL or an engine) to the newest revision."""
    engine = create_engine(target) if isinstance(target, str) else target
    try:
        with advisory_lock(engine, MIGRATION_LOCK), _alembic, engine.begin() as connection:
            before = _revision(connection)
            legacy = before is None and inspect(connection).has_table("submissions")
            cfg = config(connection)
            if legacy:
                command.stamp(cfg, LEGACY_REVISION)
            if before != head():
                command.upgrade(cfg, "head")
            after = _revision(connection) or "none"
    finally:
        if isinstance(target, str):
            engine.dispose()
    return Upgrade(engine.url.render_as_string(hide_password=True), before, after, legacy)
