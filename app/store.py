"""The submission store: SQLite by default, PostgreSQL (any SQLAlchemy URL) by setting.

A result is committed before it is returned to the learner, so it survives a crash of the
server right after grading. The tables are in app/tables.py; opening a store brings its
schema to the newest migration (app/migrate.py).
"""

from __future__ import annotations

import secrets
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, insert, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.migrate import Upgrade, advisory_lock, lock_key, upgrade
from app.tables import (
    Base,
    DraftRow,
    ReferenceCacheRow,
    SubmissionRow,
    write_submissions,
)
from graders.results import GradeResult

__all__ = ["Base", "DatabaseReferenceCache", "Store", "StoreUnavailable", "SubmissionRow"]


class StoreUnavailable(Exception):
    """The database could not take or give the data (busy, read-only, gone)."""


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    # With WAL, NORMAL keeps every committed transaction through a crash or kill -9 of
    # the server (only an OS crash or power loss can lose the last ones) and halves the
    # cost of a commit (2.0 -> 0.9 ms measured), which sits on every Submit's path.
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def new_id() -> str:
    return secrets.token_hex(12)


def now() -> datetime:
    return datetime.now(UTC)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _without_nul(value: Any) -> Any:
    """``value`` (JSON data) with every NUL character replaced by U+FFFD. PostgreSQL's
    text and jsonb cannot hold NUL, and learner output can: the answer shows the same
    replacement whichever database stores it."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd") if "\x00" in value else value
    if isinstance(value, dict):
        return {k: _without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    return value


class Store:
    def __init__(self, url: str, upgrade: bool = True) -> None:
        if url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = create_engine(url, pool_pre_ping=True)
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # What opening the store did to the schema (None: it was left as it was).
        self.migration: Upgrade | None = _upgrade(self.engine) if upgrade else None
        self.reference_cache = DatabaseReferenceCache(self)

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    def _session(self) -> Session:
        return self._sessions()

    # --- submissions ---

    def save_submission(
        self,
        learner: str,
        result: GradeResult,
        code: str,
        exercise_version: str,
        sub_id: str | None = None,
    ) -> dict[str, Any]:
        """Store a graded submission; return the result as the API shows it.

        ``sub_id`` names it (a new id if None). If a submission of that id is stored
        already, e.g. a job graded twice after a retry, the first one stays and is what
        this returns: an id is answered with one result, whichever node asks.
        """
        sub_id, created = sub_id or new_id(), now()
        shown = _without_nul(
            {"id": sub_id, **result.model_dump(mode="json"), "created_at": created.isoformat()}
        )
        row = {
            "id": sub_id,
            "learner": learner,
            "exercise": result.exercise,
            "track": result.track,
            "mode": result.mode,
            "exercise_version": exercise_version,
            "status": result.status.value,
            "passed": result.passed,
            "total": result.total,
            "duration_ms": result.duration_ms,
            "created_at": created,
            "code": code,
            "result": shown,
        }
        try:
            # One transaction: the submission and its per-test rows, or neither.
            with self.engine.begin() as connection:
                write_submissions(connection, [row])
        except IntegrityError:
            stored = self.get_submission(sub_id)
            if stored is None:  # not a duplicate id: a real problem
                raise
            return stored
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc
        return shown

    def get_submission(self, sub_id: str) -> dict[str, Any] | None:
        try:
            with self._session() as session:
                row = session.get(SubmissionRow, sub_id)
                return dict(row.result) if row else None
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc

    def solved(self, learner: str) -> set[str]:
        """Slugs of the exercises this learner passed on submit, in any track."""
        query = (
            select(SubmissionRow.exercise)
            .where(SubmissionRow.learner == learner)
            .where(SubmissionRow.mode == "submit")
            .where(SubmissionRow.status == "pass")
            .distinct()
        )
        try:
            with self._session() as session:
                return set(session.scalars(query))
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc

    # --- drafts ---

    def save_draft(self, learner: str, exercise: str, track: str, code: str) -> dict[str, Any]:
        stamp = now()
        try:
            with self._session() as session, session.begin():
                row = session.get(DraftRow, (learner, exercise, track))
                if row is None:
                    session.add(
                        DraftRow(
                            learner=learner,
                            exercise=exercise,
                            track=track,
                            code=code,
                            updated_at=stamp,
                        )
                    )
                else:
                    row.code, row.updated_at = code, stamp
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc
        return {"code": code, "updated_at": stamp.isoformat()}

    def get_draft(self, learner: str, exercise: str, track: str) -> dict[str, Any] | None:
        try:
            with self._session() as session:
                row = session.get(DraftRow, (learner, exercise, track))
                if row is None:
                    return None
                return {"code": row.code, "updated_at": _aware(row.updated_at).isoformat()}
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc


def _upgrade(engine: Engine) -> Upgrade:
    try:
        return upgrade(engine)
    except OperationalError as exc:
        raise StoreUnavailable(f"cannot bring the database schema up to date: {exc.orig}") from exc


class DatabaseReferenceCache:
    """Computed references (graders.references.ReferenceCache) in the shared database, so
    that N web nodes compute each reference once. The first one saved stays."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def load(self, key: str) -> dict[str, Any] | None:
        query = select(ReferenceCacheRow.data).where(ReferenceCacheRow.key == key)
        try:
            with self.store.engine.connect() as connection:
                data = connection.execute(query).scalar_one_or_none()
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc
        return data if isinstance(data, dict) else None

    def save(self, key: str, data: dict[str, Any]) -> None:
        row = {"key": key, "data": data, "created_at": now()}
        try:
            with self.store.engine.begin() as connection:
                connection.execute(insert(ReferenceCacheRow), row)
        except IntegrityError:
            pass  # another node saved it first: the same inputs, the same reference
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc

    def claim(self, key: str) -> AbstractContextManager[None]:
        """On PostgreSQL an advisory lock on the key, held on a connection of its own while
        this node computes: a second node waits, then loads what the first saved."""
        return advisory_lock(self.store.engine, lock_key(f"reference:{key}"))
