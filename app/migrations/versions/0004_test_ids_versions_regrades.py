"""Tests keyed by their stable id, statistics by exercise version, regrades.

``submission_tests`` gains the test's id (None for rows stored before ids existed: the
statistics match those to today's tests by name) and its submission's exercise version
(copied from ``submissions``), and the statistics indexes lead with the version.
``submissions`` gains ``regrade_of`` and ``regrade_run``: a regrade stores a new row and
keeps the old one. ``exercise_versions`` says when each version went live, first filled
from the oldest submission of each version; ``regrade_runs`` records each regrade.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_submissions = sa.table(
    "submissions",
    sa.column("id", sa.String),
    sa.column("exercise", sa.String),
    sa.column("exercise_version", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
_tests = sa.table(
    "submission_tests",
    sa.column("submission_id", sa.String),
    sa.column("exercise_version", sa.String),
)
_versions = sa.table(
    "exercise_versions",
    sa.column("exercise", sa.String),
    sa.column("version", sa.String),
    sa.column("went_live_at", sa.DateTime(timezone=True)),
)


def upgrade() -> None:
    op.create_table(
        "exercise_versions",
        sa.Column("exercise", sa.String(100), primary_key=True),
        sa.Column("version", sa.String(32), primary_key=True),
        sa.Column("went_live_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "regrade_runs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("exercise", sa.String(100), nullable=False),
        sa.Column("track", sa.String(16), nullable=True),
        sa.Column("since", sa.String(64), nullable=True),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("summary", sa.JSON().with_variant(sa.dialects.postgresql.JSONB(), "postgresql")),
    )
    op.create_index("ix_regrade_runs_exercise", "regrade_runs", ["exercise"])
    with op.batch_alter_table("submissions") as batch:
        batch.add_column(sa.Column("regrade_of", sa.String(32), nullable=True))
        batch.add_column(sa.Column("regrade_run", sa.String(32), nullable=True))
        batch.create_unique_constraint("uq_submissions_regrade_of", ["regrade_of"])
    op.create_index("ix_submissions_regrade_run", "submissions", ["regrade_run"])
    with op.batch_alter_table("submission_tests") as batch:
        batch.add_column(sa.Column("test_id", sa.String(64), nullable=True))
        batch.add_column(sa.Column("exercise_version", sa.String(32), nullable=True))
    op.execute(
        _tests.update().values(
            exercise_version=sa.select(_submissions.c.exercise_version)
            .where(_submissions.c.id == _tests.c.submission_id)
            .scalar_subquery()
        )
    )
    op.execute(
        _versions.insert().from_select(
            ["exercise", "version", "went_live_at"],
            sa.select(
                _submissions.c.exercise,
                _submissions.c.exercise_version,
                sa.func.min(_submissions.c.created_at),
            ).group_by(_submissions.c.exercise, _submissions.c.exercise_version),
        )
    )
    _replace_indexes(with_versions=True)


def downgrade() -> None:
    _replace_indexes(with_versions=False)
    with op.batch_alter_table("submission_tests") as batch:
        batch.drop_column("exercise_version")
        batch.drop_column("test_id")
    op.drop_index("ix_submissions_regrade_run", "submissions")
    with op.batch_alter_table("submissions") as batch:
        batch.drop_constraint("uq_submissions_regrade_of", type_="unique")
        batch.drop_column("regrade_run")
        batch.drop_column("regrade_of")
    op.drop_index("ix_regrade_runs_exercise", "regrade_runs")
    op.drop_table("regrade_runs")
    op.drop_table("exercise_versions")


def _replace_indexes(with_versions: bool) -> None:
    version = ["exercise_version"] if with_versions else []
    test = ["test_id", "test"] if with_versions else ["test"]
    op.drop_index("ix_submissions_statistics", "submissions")
    op.create_index(
        "ix_submissions_statistics",
        "submissions",
        ["mode", "exercise", *version, "track", "status", "learner", "created_at"],
    )
    op.drop_index("ix_submission_tests_statistics", "submission_tests")
    op.create_index(
        "ix_submission_tests_statistics",
        "submission_tests",
        ["exercise", "mode", *version, "track", *test, "status", "position"],
    )
    failed = sa.text("status != 'pass'")
    op.drop_index("ix_submission_tests_failures", "submission_tests")
    op.create_index(
        "ix_submission_tests_failures",
        "submission_tests",
        ["exercise", "mode", *version, "track"],
        postgresql_where=failed,
        sqlite_where=failed,
    )
