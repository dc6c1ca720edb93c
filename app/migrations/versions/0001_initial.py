"""The schema from before migrations: submissions and drafts.

Exactly what ``Base.metadata.create_all`` made until then, so a database the earlier
code created is stamped at this revision (see app.migrate) and upgraded from here.

Revision ID: 0001
Revises:
Create Date: 2025-01-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "submissions",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("learner", sa.String(64), nullable=False),
        sa.Column("exercise", sa.String(100), nullable=False),
        sa.Column("track", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("exercise_version", sa.String(32), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("passed", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("result", JSON, nullable=False),
    )
    for column in ("exercise", "learner", "status", "created_at"):
        op.create_index(f"ix_submissions_{column}", "submissions", [column])
    op.create_table(
        "drafts",
        sa.Column("learner", sa.String(64), primary_key=True),
        sa.Column("exercise", sa.String(100), primary_key=True),
        sa.Column("track", sa.String(16), primary_key=True),
        sa.Column("code", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("drafts")
    op.drop_table("submissions")
