"""Who a failure is due to: ``submission_tests.blame``.

Learner, test (the exercise's test failed), grader (an internal grading error) or
infrastructure (a grading machine lost); None for a pass or a test that did not run.
Stored rows are filled from their messages, which began with the grader's own words
whenever the blame was not the learner's. A partial index serves the statistics, which
count the rare failures that are not the learner's apart.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_tests = sa.table(
    "submission_tests",
    sa.column("status", sa.String),
    sa.column("message", sa.Text),
    sa.column("blame", sa.String),
)
# As graders.grading.results.LEGACY_BLAME_STARTS read them when this revision was written.
_STARTS = (
    ("the test failed before calling your code", "test"),
    ("internal grading error", "grader"),
    ("the grading machine was lost", "infrastructure"),
    ("the sandbox stopped unexpectedly", "infrastructure"),
)
NOT_LEARNERS = sa.text("blame != 'learner'")


def upgrade() -> None:
    with op.batch_alter_table("submission_tests") as batch:
        batch.add_column(sa.Column("blame", sa.String(16), nullable=True))
    message = sa.func.coalesce(_tests.c.message, "")
    blame = sa.case(
        *((message.like(start + "%"), value) for start, value in _STARTS), else_="learner"
    )
    op.execute(_tests.update().where(_tests.c.status.in_(("fail", "error"))).values(blame=blame))
    op.create_index(
        "ix_submission_tests_not_learners",
        "submission_tests",
        ["exercise", "mode", "exercise_version", "track"],
        postgresql_where=NOT_LEARNERS,
        sqlite_where=NOT_LEARNERS,
    )


def downgrade() -> None:
    op.drop_index("ix_submission_tests_not_learners", "submission_tests")
    with op.batch_alter_table("submission_tests") as batch:
        batch.drop_column("blame")
