"""Accounts, sessions, courses, assignments, and what LTI 1.3 needs to remember.

Accounts (a name and an argon2 password hash, or an LMS user) with server-side sessions;
courses with a join code, members with a role, assignments (exercise and track, optional
deadline); the LMS platforms registered, the tool's signing key, OIDC states, used nonces,
and the outbox of scores waiting to reach an LMS gradebook. New tables only: nothing
stored before changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "accounts",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("learner", sa.String(length=64), nullable=False),
        sa.Column("username", sa.String(length=64), nullable=True),
        sa.Column("display_name", sa.String(length=100), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("learner"),
        sa.UniqueConstraint("username"),
    )
    op.create_table(
        "courses",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("join_code", sa.String(length=16), nullable=False),
        sa.Column("late_counts", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lti_issuer", sa.String(length=255), nullable=True),
        sa.Column("lti_context", sa.String(length=255), nullable=True),
        sa.Column("lti_registration", sa.String(length=32), nullable=True),
        sa.Column("lti_memberships_url", sa.Text(), nullable=True),
        sa.Column("lti_lineitems_url", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("join_code"),
    )
    with op.batch_alter_table("courses", schema=None) as batch_op:
        batch_op.create_index("ix_courses_lti_context", ["lti_issuer", "lti_context"], unique=True)

    op.create_table(
        "lti_keys",
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("private_jwk", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("kid"),
    )
    op.create_table(
        "lti_nonces",
        sa.Column("nonce", sa.String(length=128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("nonce"),
    )
    with op.batch_alter_table("lti_nonces", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_nonces_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "lti_registrations",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("client_id", sa.String(length=255), nullable=False),
        sa.Column(
            "deployment_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("auth_login_url", sa.Text(), nullable=False),
        sa.Column("auth_token_url", sa.Text(), nullable=False),
        sa.Column("key_set_url", sa.Text(), nullable=False),
        sa.Column("auth_token_audience", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("lti_registrations", schema=None) as batch_op:
        batch_op.create_index("ix_lti_registrations_client", ["issuer", "client_id"], unique=True)

    op.create_table(
        "lti_states",
        sa.Column("state", sa.String(length=64), nullable=False),
        sa.Column("nonce", sa.String(length=64), nullable=False),
        sa.Column("registration_id", sa.String(length=32), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("state"),
    )
    with op.batch_alter_table("lti_states", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_states_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "assignments",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("course_id", sa.String(length=32), nullable=False),
        sa.Column("exercise", sa.String(length=100), nullable=False),
        sa.Column("track", sa.String(length=16), nullable=False),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lti_lineitem", sa.Text(), nullable=True),
        sa.Column("lti_resource_link", sa.String(length=255), nullable=True),
        sa.ForeignKeyConstraint(["course_id"], ["courses.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_assignments_course_id"), ["course_id"], unique=False)
        batch_op.create_index(
            "ix_assignments_course_task", ["course_id", "exercise", "track"], unique=True
        )

    op.create_table(
        "course_members",
        sa.Column("course_id", sa.String(length=32), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["course_id"], ["courses.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("course_id", "account_id"),
    )
    with op.batch_alter_table("course_members", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_course_members_account_id"), ["account_id"], unique=False
        )

    op.create_table(
        "lti_users",
        sa.Column("issuer", sa.String(length=255), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("issuer", "subject"),
    )
    with op.batch_alter_table("lti_users", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lti_users_account_id"), ["account_id"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sessions_account_id"), ["account_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_sessions_expires_at"), ["expires_at"], unique=False)

    op.create_table(
        "score_outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("assignment_id", sa.String(length=32), nullable=False),
        sa.Column("account_id", sa.String(length=32), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("submission_id", sa.String(length=32), nullable=True),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["assignment_id"], ["assignments.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("score_outbox", schema=None) as batch_op:
        batch_op.create_index("ix_score_outbox_due", ["sent_at", "next_attempt_at"], unique=False)
        batch_op.create_index("ix_score_outbox_task", ["assignment_id", "account_id"], unique=True)


def downgrade() -> None:

    with op.batch_alter_table("score_outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_score_outbox_task")
        batch_op.drop_index("ix_score_outbox_due")

    op.drop_table("score_outbox")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sessions_expires_at"))
        batch_op.drop_index(batch_op.f("ix_sessions_account_id"))

    op.drop_table("sessions")
    with op.batch_alter_table("lti_users", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_users_account_id"))

    op.drop_table("lti_users")
    with op.batch_alter_table("course_members", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_course_members_account_id"))

    op.drop_table("course_members")
    with op.batch_alter_table("assignments", schema=None) as batch_op:
        batch_op.drop_index("ix_assignments_course_task")
        batch_op.drop_index(batch_op.f("ix_assignments_course_id"))

    op.drop_table("assignments")
    with op.batch_alter_table("lti_states", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_states_expires_at"))

    op.drop_table("lti_states")
    with op.batch_alter_table("lti_registrations", schema=None) as batch_op:
        batch_op.drop_index("ix_lti_registrations_client")

    op.drop_table("lti_registrations")
    with op.batch_alter_table("lti_nonces", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lti_nonces_expires_at"))

    op.drop_table("lti_nonces")
    op.drop_table("lti_keys")
    with op.batch_alter_table("courses", schema=None) as batch_op:
        batch_op.drop_index("ix_courses_lti_context")

    op.drop_table("courses")
    op.drop_table("accounts")
