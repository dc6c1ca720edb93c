"""A learner's own submissions by exercise, newest first; tests that never ran.

The history and progress of a learner read ``ix_submissions_learner_history`` (learner,
exercise, created_at, id), which also serves every query by learner alone, so the
single-column ``ix_submissions_learner`` goes. Per-test rows that earlier code stored as
errors with the message below become ``not_run``: the statistics count them neither as
runs nor as failures of their test.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# Frozen copies of graders.grading.results' texts as they were when this was written.
LEGACY_NOT_RUN = "not run: an earlier test stopped the run"
NOT_RUN_MESSAGE = "an earlier test ended the run before this test started"

_tests = sa.table("submission_tests", sa.column("status", sa.String), sa.column("message", sa.Text))


def upgrade() -> None:
    op.create_index(
        "ix_submissions_learner_history",
        "submissions",
        ["learner", "exercise", "created_at", "id"],
    )
    op.drop_index("ix_submissions_learner", "submissions")
    op.execute(
        _tests.update()
        .where(_tests.c.status == "error", _tests.c.message == LEGACY_NOT_RUN)
        .values(status="not_run", message=NOT_RUN_MESSAGE)
    )


def downgrade() -> None:
    op.execute(
        _tests.update()
        .where(_tests.c.status == "not_run")
        .values(status="error", message=LEGACY_NOT_RUN)
    )
    op.create_index("ix_submissions_learner", "submissions", ["learner"])
    op.drop_index("ix_submissions_learner_history", "submissions")
