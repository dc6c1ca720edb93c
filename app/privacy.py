"""What Drill keeps of a learner, and deleting it (the account page, ``drill learner delete``).

Deletes are explicit, child rows first: SQLite does not enforce foreign keys here, so no
row may rely on a cascade to go.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select

from app.store import Store, database_errors
from app.tables import (
    AccountRow,
    DraftRow,
    LtiUserRow,
    MemberRow,
    ScoreOutboxRow,
    SessionRow,
    SubmissionRow,
    SubmissionTestRow,
)


def learner_data(store: Store, learner: str) -> dict[str, Any]:
    """What is stored under a learner id: counts, and the exercises it touches."""
    s = SubmissionRow
    with database_errors(), store.engine.connect() as connection:
        submissions = connection.execute(
            select(func.count()).where(s.learner == learner, s.regrade_of.is_(None))
        ).scalar_one()
        drafts = connection.execute(
            select(func.count()).where(DraftRow.learner == learner)
        ).scalar_one()
        exercises = sorted(
            connection.execute(select(s.exercise).where(s.learner == learner).distinct()).scalars()
        )
    return {"submissions": int(submissions), "drafts": int(drafts), "exercises": exercises}


def delete_learner_data(store: Store, learner: str) -> int:
    """Delete a learner id's submissions (with their regrades and test rows) and drafts;
    how many submissions went."""
    s = SubmissionRow
    mine = select(s.id).where(s.learner == learner)
    with database_errors(), store.engine.begin() as connection:
        connection.execute(
            delete(SubmissionTestRow).where(SubmissionTestRow.submission_id.in_(mine))
        )
        gone = connection.execute(delete(s).where(s.learner == learner)).rowcount
        connection.execute(delete(DraftRow).where(DraftRow.learner == learner))
    return int(gone or 0)


def delete_account(store: Store, account_id: str) -> bool:
    """Delete an account and all it holds: its learner's data, sessions, memberships, LMS
    links and unsent scores. False if there was no such account."""
    with database_errors(), store.engine.connect() as connection:
        learner = connection.execute(
            select(AccountRow.learner).where(AccountRow.id == account_id)
        ).scalar_one_or_none()
    if learner is None:
        return False
    delete_learner_data(store, learner)
    with database_errors(), store.engine.begin() as connection:
        for table in (SessionRow, MemberRow, LtiUserRow, ScoreOutboxRow):
            connection.execute(delete(table).where(table.account_id == account_id))
        connection.execute(delete(AccountRow).where(AccountRow.id == account_id))
    return True
