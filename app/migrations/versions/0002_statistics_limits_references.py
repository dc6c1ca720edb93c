"""Per-test rows for the statistics, shared rate buckets and the reference cache.

``submission_tests`` is filled from the results already stored, oldest first, so the
statistics of an existing database are the same after the upgrade.

Revision ID: 0002
Revises: 0001
Create Date: 2025-01-20
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
BATCH = 1_000
MESSAGE_CHARS = 1_000
TEST_NAME_CHARS = 200


def upgrade() -> None:
    op.create_index(
        "ix_submissions_statistics",
        "submissions",
        ["mode", "exercise", "track", "status", "learner", "created_at"],
    )
    tests = op.create_table(
        "submission_tests",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "submission_id",
            sa.String(32),
            sa.ForeignKey("submissions.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("exercise", sa.String(100), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("track", sa.String(16), nullable=False),
        sa.Column("test", sa.String(TEST_NAME_CHARS), nullable=True),
        sa.Column("position", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("message", sa.Text(), nullable=True),
    )
    op.create_index("ix_submission_tests_submission_id", "submission_tests", ["submission_id"])
    op.create_index(
        "ix_submission_tests_statistics",
        "submission_tests",
        ["exercise", "mode", "track", "test", "status", "position"],
    )
    failed = sa.text("status <> 'pass'")
    op.create_index(
        "ix_submission_tests_failures",
        "submission_tests",
        ["exercise", "mode", "track"],
        postgresql_where=failed,
        sqlite_where=failed,
    )
    op.create_table(
        "rate_buckets",
        sa.Column("client", sa.String(128), primary_key=True),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("stamp", sa.Float(), nullable=False),
    )
    op.create_table(
        "reference_cache",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("data", JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    _backfill(tests)


def downgrade() -> None:
    op.drop_table("reference_cache")
    op.drop_table("rate_buckets")
    op.drop_table("submission_tests")
    op.drop_index("ix_submissions_statistics", "submissions")


def _backfill(tests: sa.Table) -> None:
    """One row per test of every stored result, in the order they were stored: pages of
    BATCH rows in (created_at, id) order, so memory stays flat on a big table."""
    connection = op.get_bind()
    submissions = sa.table(
        "submissions",
        *(sa.column(name) for name in ("id", "exercise", "mode", "track", "created_at")),
        sa.column("result", JSON),
    )
    query = sa.select(submissions).order_by(submissions.c.created_at, submissions.c.id)
    after: tuple[Any, str] | None = None
    while True:
        page = query
        if after is not None:
            stamp, sub_id = after
            page = query.where(
                sa.or_(
                    submissions.c.created_at > stamp,
                    sa.and_(submissions.c.created_at == stamp, submissions.c.id > sub_id),
                )
            )
        rows = connection.execute(page.limit(BATCH)).all()
        if not rows:
            return
        found = [t for row in rows for t in _tests_of(row._asdict())]
        if found:
            connection.execute(tests.insert(), found)
        after = (rows[-1].created_at, rows[-1].id)


# A frozen copy of app.tables.tests_of as it was when this was written: a migration must
# keep doing what it did, whatever the application's code becomes.


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _tests_of(submission: dict[str, Any]) -> list[dict[str, Any]]:
    result = submission["result"]
    if not isinstance(result, dict):
        return []
    tests = result.get("tests") or []
    found: list[tuple[str | None, int | None, str, str | None]] = []
    for position, test in enumerate(tests):
        if isinstance(test, dict) and isinstance(test.get("name"), str):
            status = str(test.get("status"))
            failed = status != "pass"
            message = _clip(str(test.get("message") or ""), MESSAGE_CHARS) if failed else None
            found.append((_clip(test["name"], TEST_NAME_CHARS), position, status, message))
    if not tests and result.get("status") != "pass" and result.get("message"):
        message = _clip(str(result["message"]), MESSAGE_CHARS)
        found.append((None, None, str(result["status"]), message))
    of = {k: submission[k] for k in ("exercise", "mode", "track")}
    return [
        {"submission_id": submission["id"], **of, "test": test, "position": position,
         "status": status[:8], "message": message}
        for test, position, status, message in found
    ]  # fmt: skip
