"""Grading leases: each client's share of the workers, counted across API nodes.

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


def upgrade() -> None:
    op.create_table(
        "grading_leases",
        sa.Column("job", sa.String(32), primary_key=True),
        sa.Column("client", sa.String(128), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
    )
    op.create_index("ix_grading_leases_client", "grading_leases", ["client"])


def downgrade() -> None:
    op.drop_index("ix_grading_leases_client", "grading_leases")
    op.drop_table("grading_leases")
