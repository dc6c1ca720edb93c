"""A stored flag for the gradings a regrade replaced: ``superseded``.

``submissions`` and ``submission_tests`` gain ``superseded`` (false unless a regrade
replaced the row: app.regrade sets it on the old row and its test rows in the
transaction that stores the new one). Stored rows are filled from ``regrade_of``. The
statistics keep each Submit's newest grading by this column instead of looking up, per
row, whether a newer row names it. It joins their indexes before the exercise version:
an exercise's newest gradings are one range of each index, and so are a version's, in
track order.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_submissions = sa.table(
    "submissions",
    sa.column("id", sa.String),
    sa.column("regrade_of", sa.String),
    sa.column("superseded", sa.Boolean),
)
_tests = sa.table(
    "submission_tests",
    sa.column("submission_id", sa.String),
    sa.column("superseded", sa.Boolean),
)
FAILED = sa.text("status != 'pass'")
NOT_LEARNERS = sa.text("blame != 'learner'")
TABLES = ("submissions", "submission_tests")


def upgrade() -> None:
    _drop_indexes()
    for table in TABLES:
        op.add_column(
            table,
            sa.Column("superseded", sa.Boolean(), nullable=False, server_default=sa.false()),
        )
    replaced = sa.select(_submissions.c.regrade_of).where(_submissions.c.regrade_of.is_not(None))
    op.execute(_submissions.update().where(_submissions.c.id.in_(replaced)).values(superseded=True))
    op.execute(_tests.update().where(_tests.c.submission_id.in_(replaced)).values(superseded=True))
    _create_indexes(["superseded"])


def downgrade() -> None:
    _drop_indexes()
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("superseded")
    _create_indexes([])


def _drop_indexes() -> None:
    op.drop_index("ix_submissions_statistics", "submissions")
    for name in ("statistics", "failures", "not_learners"):
        op.drop_index(f"ix_submission_tests_{name}", "submission_tests")


def _create_indexes(superseded: list[str]) -> None:
    op.create_index(
        "ix_submissions_statistics",
        "submissions",
        ["mode", "exercise", *superseded, "exercise_version", "track", "status", "learner",
         "created_at"],
    )  # fmt: skip
    version = ["exercise", "mode", *superseded, "exercise_version", "track"]
    op.create_index(
        "ix_submission_tests_statistics",
        "submission_tests",
        [*version, "test_id", "test", "status", "position"],
    )
    for name, where in (("failures", FAILED), ("not_learners", NOT_LEARNERS)):
        op.create_index(
            f"ix_submission_tests_{name}",
            "submission_tests",
            version,
            postgresql_where=where,
            sqlite_where=where,
        )
