"""The submission store: SQLite by default, PostgreSQL (any SQLAlchemy URL) by setting.

A result is committed before it is returned to the learner, so it survives a crash of the
server right after grading. The tables are in app/tables.py; opening a store brings its
schema to the newest migration (app/migrate.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

from sqlalchemy import (
    Select,
    and_,
    case,
    create_engine,
    event,
    false,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from app.migrate import Upgrade, advisory_lock, lock_key, upgrade
from app.tables import (
    Base,
    DraftRow,
    ExerciseVersionRow,
    ReferenceCacheRow,
    SubmissionRow,
    SubmissionTestRow,
    write_submissions,
)
from graders.grading.results import OUTPUT_EXPIRED, GradeResult

__all__ = [
    "Base",
    "DatabaseReferenceCache",
    "Store",
    "StoreUnavailable",
    "SubmissionRow",
    "TrackProgress",
    "database_errors",
]


class StoreUnavailable(Exception):
    """The database could not take or give the data (busy, read-only, gone)."""


@contextmanager
def database_errors(doing: str | None = None) -> Iterator[None]:
    """Turn the OperationalError of a database that is down, locked (busy past SQLite's
    timeout) or read-only, raised in the block, into StoreUnavailable: the exception the
    routes answer with a 503 (app.errors) and the background loops log and try again on,
    so none of them needs to know SQLAlchemy. The message is the driver's (``doing``, if
    given, goes before it); the OperationalError is its cause. Nothing else is caught: an
    IntegrityError (a key stored already) is for the caller to handle around the block.
    """
    try:
        yield
    except OperationalError as exc:
        raise StoreUnavailable(str(exc.orig) if doing is None else f"{doing}: {exc.orig}") from exc


class TrackProgress(NamedTuple):
    """A learner's standing in one track of an exercise."""

    solved: bool  # a Submit passed
    attempts: int  # Submits (a Run is not an attempt)
    last_submission: str | None  # the newest submission's id, a Run or a Submit


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


def aware(value: datetime) -> datetime:
    """A stored time with its zone: SQLite gives it back naive, and it was stored in UTC.
    (app.stats.as_utc also converts an aware time to UTC, for the pages.)"""
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
        # A server's connections can drop (a restart, a proxy): each is tested before
        # use. A SQLite file's cannot, and the test cost a Submit about 1 ms.
        self.engine: Engine = create_engine(url, pool_pre_ping=not url.startswith("sqlite"))
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        # What opening the store did to the schema (None: it was left as it was).
        self.migration: Upgrade | None = _upgrade(self.engine) if upgrade else None
        self.reference_cache = DatabaseReferenceCache(self)
        self._versions_noted: set[tuple[str, str]] = set()  # no write per Submit

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def close(self) -> None:
        self.engine.dispose()

    def _session(self) -> Session:
        return self._sessions()

    # --- exercise versions ---

    def note_version(self, exercise: str, version: str) -> None:
        """Record that ``version`` of ``exercise`` is live now, unless it was seen before
        (the first node to see it sets the time)."""
        if (exercise, version) in self._versions_noted:
            return
        row = {"exercise": exercise, "version": version, "went_live_at": now()}
        try:
            with database_errors(), self.engine.begin() as connection:
                connection.execute(insert(ExerciseVersionRow), row)
        except IntegrityError:
            pass  # seen before, here or by another node
        self._versions_noted.add((exercise, version))

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
        shown: dict[str, Any] = _without_nul(
            {
                "id": sub_id,
                **result.model_dump(mode="json"),
                "created_at": created.isoformat(),
                "regrade": None,  # a regrade's row says what it replaced (app.regrade)
            }
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
            with database_errors(), self.engine.begin() as connection:
                write_submissions(connection, [row])
        except IntegrityError:
            stored = self.get_submission(sub_id)
            if stored is None:  # not a duplicate id: a real problem
                raise
            return stored
        return shown

    def expire_outputs(
        self, before: datetime, after: datetime | None = None, batch: int = 200
    ) -> tuple[int, datetime | None]:
        """Replace the learner output kept with submissions made in [after, before) by a
        note (verdicts, messages and code stay); return how many rows changed and the
        time of the newest row looked at, the next call's ``after``."""
        s = SubmissionRow
        changed, seen = 0, after
        with database_errors():
            while True:
                window = s.created_at < before
                if seen is not None:
                    window = and_(window, s.created_at >= seen)
                with self.engine.begin() as connection:
                    rows = connection.execute(
                        select(s.id, s.created_at, s.result)
                        .where(window)
                        .order_by(s.created_at, s.id)
                        .limit(batch)
                    ).all()
                    for row in rows:
                        result = dict(row.result)
                        tests = [dict(t) for t in result.get("tests", [])]
                        # What the module printed while loading (absent from results
                        # stored before it was kept apart) goes the same way.
                        load = result.get("load_output") or ""
                        if load in ("", OUTPUT_EXPIRED) and not any(
                            t.get("output") not in ("", OUTPUT_EXPIRED) for t in tests
                        ):
                            continue
                        for test in tests:
                            if test.get("output"):
                                test["output"] = OUTPUT_EXPIRED
                        if load:
                            result["load_output"] = OUTPUT_EXPIRED
                        connection.execute(
                            update(s)
                            .where(s.id == row.id)
                            .values(result={**result, "tests": tests})
                        )
                        changed += 1
                if rows:
                    last = aware(rows[-1].created_at)
                    # A whole batch made at one instant: step past it rather than loop.
                    seen = last + timedelta(microseconds=1) if last == seen else last
                if len(rows) < batch:
                    return changed, seen

    def get_submission(self, sub_id: str) -> dict[str, Any] | None:
        with database_errors(), self._session() as session:
            row = session.get(SubmissionRow, sub_id)
            return dict(row.result) if row else None

    def submission_code(self, sub_id: str, learner: str) -> str | None:
        """The code of a submission, for the learner who sent it; None for anyone else."""
        query = select(SubmissionRow.code).where(
            SubmissionRow.id == sub_id, SubmissionRow.learner == learner
        )
        with database_errors(), self._session() as session:
            return session.scalars(query).first()

    def solved(self, learner: str) -> set[str]:
        """Slugs of the exercises this learner passed on submit, in any track (by the
        newest grading of each submission: a regraded verdict replaces the old one)."""
        query = (
            select(SubmissionRow.exercise)
            .where(SubmissionRow.learner == learner)
            .where(SubmissionRow.mode == "submit")
            .where(SubmissionRow.status == "pass")
            .where(not_superseded())
            .distinct()
        )
        with database_errors(), self._session() as session:
            return set(session.scalars(query))

    def history(
        self, learner: str, exercise: str, track: str | None = None, limit: int = 20
    ) -> list[dict[str, Any]]:
        """The learner's own submissions of ``exercise`` (of one ``track`` if given),
        newest first: ``{id, track, mode, status, passed, total, duration_ms,
        created_at}`` each, read from the narrow columns, never from the stored results."""
        query = history_query(learner, exercise, track, limit)
        with database_errors(), self.engine.connect() as connection:
            rows = connection.execute(query).all()
        return [{**row._asdict(), "created_at": aware(row.created_at).isoformat()} for row in rows]

    def progress(
        self, learner: str, exercise: str | None = None
    ) -> dict[tuple[str, str], TrackProgress]:
        """Per (exercise, track) the learner submitted to (of ``exercise`` only, if
        given): whether a Submit passed, how many Submits there were (Runs are not
        attempts) and the newest submission's id (a Run or a Submit)."""
        s = SubmissionRow
        submit = s.mode == "submit"
        mine = (s.learner == learner, *((s.exercise == exercise,) if exercise else ()))
        # A regrade is not an attempt, and only a submission's newest grading counts.
        attempt = and_(submit, s.regrade_of.is_(None))
        passing = and_(submit, s.status == "pass", not_superseded())
        counts = (
            select(
                s.exercise,
                s.track,
                func.sum(case((attempt, 1), else_=0)),
                func.max(case((passing, 1), else_=0)),
            )
            .where(*mine)
            .group_by(s.exercise, s.track)
        )
        ranked = (  # each row's place in its track, newest first
            select(
                s.exercise,
                s.track,
                s.id,
                func.row_number()
                .over(
                    partition_by=(s.exercise, s.track),
                    order_by=(s.created_at.desc(), s.id.desc()),
                )
                .label("place"),
            )
            .where(*mine)
            .subquery()
        )
        latest = select(ranked.c.exercise, ranked.c.track, ranked.c.id).where(ranked.c.place == 1)
        with database_errors(), self.engine.connect() as connection:
            found = {
                (exercise, track): TrackProgress(bool(solved), int(attempts or 0), None)
                for exercise, track, attempts, solved in connection.execute(counts)
            }
            for exercise, track, sub_id in connection.execute(latest):
                found[exercise, track] = found[exercise, track]._replace(last_submission=sub_id)
        return found

    # --- drafts ---

    def save_draft(self, learner: str, exercise: str, track: str, code: str) -> dict[str, Any]:
        stamp = now()
        with database_errors(), self._session() as session, session.begin():
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
        return {"code": code, "updated_at": stamp.isoformat()}

    def get_draft(self, learner: str, exercise: str, track: str) -> dict[str, Any] | None:
        with database_errors(), self._session() as session:
            row = session.get(DraftRow, (learner, exercise, track))
            if row is None:
                return None
            return {"code": row.code, "updated_at": aware(row.updated_at).isoformat()}


def not_superseded(table: Any = SubmissionRow) -> Any:
    """Rows no regrade has replaced: a submission's newest grading (of ``submissions``, or
    of ``submission_tests``: its tests' rows). A column of the row and of the statistics
    indexes, kept by write_regrades, not a look-up of a newer row per row."""
    return table.superseded == false()


def write_regrades(connection: Connection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert regrades (``submissions`` rows whose ``regrade_of`` names the row each one
    replaces) with their test rows, and mark the rows they replace, and those rows' tests,
    ``superseded``: in the caller's transaction, so that the statistics never see both
    gradings of a Submit, nor neither. An IntegrityError (a row regraded already: the
    unique ``regrade_of``) is raised by the insert, before anything is marked."""
    replaced = [row["regrade_of"] for row in rows]
    if None in replaced:
        raise ValueError("a regrade names the row it replaces (regrade_of)")
    if not rows:
        return
    write_submissions(connection, rows)
    s, t = SubmissionRow, SubmissionTestRow
    connection.execute(update(s).where(s.id.in_(replaced)).values(superseded=True))
    connection.execute(update(t).where(t.submission_id.in_(replaced)).values(superseded=True))


def history_query(
    learner: str, exercise: str, track: str | None, limit: int
) -> Select[str, str, str, str, int, int, float, datetime, str | None]:
    """A learner's submissions of an exercise, newest first: a backward range scan of
    ``ix_submissions_learner_history`` that stops after ``limit`` rows."""
    s = SubmissionRow
    query = (
        select(
            s.id,
            s.track,
            s.mode,
            s.status,
            s.passed,
            s.total,
            s.duration_ms,
            s.created_at,
            s.regrade_of,
        )
        .where(s.learner == learner, s.exercise == exercise)
        .order_by(s.created_at.desc(), s.id.desc())
        .limit(limit)
    )
    return query if track is None else query.where(s.track == track)


def _upgrade(engine: Engine) -> Upgrade:
    with database_errors("cannot bring the database schema up to date"):
        return upgrade(engine)


class DatabaseReferenceCache:
    """Computed references (graders.grading.references.ReferenceCache) in the shared database, so
    that N web nodes compute each reference once. The first one saved stays."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def load(self, key: str) -> dict[str, Any] | None:
        query = select(ReferenceCacheRow.data).where(ReferenceCacheRow.key == key)
        with database_errors(), self.store.engine.connect() as connection:
            data = connection.execute(query).scalar_one_or_none()
        return data if isinstance(data, dict) else None

    def save(self, key: str, data: dict[str, Any]) -> None:
        row = {"key": key, "data": data, "created_at": now()}
        try:
            with database_errors(), self.store.engine.begin() as connection:
                connection.execute(insert(ReferenceCacheRow), row)
        except IntegrityError:
            pass  # another node saved it first: the same inputs, the same reference

    def claim(self, key: str) -> AbstractContextManager[None]:
        """On PostgreSQL an advisory lock on the key, held on a connection of its own while
        this node computes: a second node waits, then loads what the first saved."""
        return advisory_lock(self.store.engine, lock_key(f"reference:{key}"))
