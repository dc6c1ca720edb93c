"""Statistics for the instructor dashboard: plain queries on the submission store.

Only Submit rows (``mode == "submit"``) count: Run only tries the visible examples, so it
says nothing about the hidden tests. Per-test numbers come from each stored result's
``tests`` list (the result JSON as the API showed it), aggregated in Python; the counts
per exercise and track are one portable GROUP BY. Every function is blocking: the routes
call them through the thread pool.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.exc import OperationalError

from app.store import Store, StoreUnavailable, SubmissionRow

SUBMIT = "submit"
TOP_FAILURES = 10
RECENT = 20
CSV_BATCH = 500
CSV_COLUMNS = (
    "id",
    "learner",
    "exercise",
    "track",
    "mode",
    "exercise_version",
    "status",
    "passed",
    "total",
    "duration_ms",
    "created_at",
    "code",
)
WHOLE_RUN: str | None = None  # the "test" of a failure that stopped the whole run


def _aware(value: datetime) -> datetime:
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def short_learner(learner: str) -> str:
    """A pseudonym that tells learners apart. The id itself is the learner's cookie (it
    opens their drafts), so neither the pages nor the export ever show it."""
    return hashlib.sha256(f"drill-learner:{learner}".encode()).hexdigest()[:10]


def _failures_of(result: Any) -> list[tuple[str | None, str]]:
    """(test name, message) of every failed test of a stored result (or of the run)."""
    if not isinstance(result, dict):
        return []
    tests = result.get("tests") or []
    found: list[tuple[str | None, str]] = [
        (str(t.get("name", "")), str(t.get("message") or ""))
        for t in tests
        if isinstance(t, dict) and t.get("status") != "pass"
    ]
    if not tests and result.get("status") != "pass" and result.get("message"):
        found.append((WHOLE_RUN, str(result["message"])))
    return found


class _Track:
    def __init__(self, test_order: Sequence[str]) -> None:
        self.submissions = 0
        self.passed = 0
        self.runs: Counter[str] = Counter({name: 0 for name in test_order})
        self.failures: Counter[str] = Counter({name: 0 for name in test_order})
        self.order: list[str] = list(test_order)
        self.messages: Counter[tuple[str | None, str]] = Counter()

    def add(self, status: str, result: Any) -> None:
        self.submissions += 1
        self.passed += status == "pass"
        tests = result.get("tests") if isinstance(result, dict) else None
        for test in tests or []:
            if not isinstance(test, dict) or not isinstance(test.get("name"), str):
                continue
            name = test["name"]
            if name not in self.runs:
                self.order.append(name)
            self.runs[name] += 1
            self.failures[name] += test.get("status") != "pass"
        self.messages.update(_failures_of(result))

    def stats(self) -> dict[str, Any]:
        return {
            "submissions": self.submissions,
            "passed": self.passed,
            "tests": [
                {"name": n, "runs": self.runs[n], "failures": self.failures[n]} for n in self.order
            ],
        }

    def top_failures(self, limit: int) -> list[dict[str, Any]]:
        # Counter.most_common keeps first-seen order among equal counts.
        return [
            {"message": message, "count": count, "test": test}
            for (test, message), count in self.messages.most_common(limit)
        ]


def _scan(store: Store, slug: str, track_tests: Mapping[str, Sequence[str]]) -> dict[str, _Track]:
    tracks = {name: _Track(tests) for name, tests in track_tests.items()}
    query = (
        select(SubmissionRow.track, SubmissionRow.status, SubmissionRow.result)
        .where(SubmissionRow.exercise == slug)
        .where(SubmissionRow.mode == SUBMIT)
        .order_by(SubmissionRow.created_at, SubmissionRow.id)
    )
    try:
        with store.engine.connect() as connection:
            for track, status, result in connection.execute(query):
                if track not in tracks:  # a track the exercise no longer has
                    tracks[track] = _Track(())
                tracks[track].add(status, result)
    except OperationalError as exc:
        raise StoreUnavailable(str(exc.orig)) from exc
    return tracks


def exercise_report(
    store: Store, slug: str, track_tests: Mapping[str, Sequence[str]], top: int = TOP_FAILURES
) -> dict[str, Any]:
    """Stats and the most common failure messages of every track, in one pass."""
    tracks = _scan(store, slug, track_tests)
    return {
        "stats": {"slug": slug, "tracks": {n: t.stats() for n, t in tracks.items()}},
        "failures": {n: t.top_failures(top) for n, t in tracks.items()},
    }


def exercise_stats(
    store: Store, slug: str, track_names: Mapping[str, Sequence[str]]
) -> dict[str, Any]:
    """``{"slug", "tracks": {TRACK: {"submissions", "passed", "tests": [{name, runs,
    failures}]}}}``; ``track_names`` maps each track of the exercise to its hidden tests'
    names in order (tests seen only in older results follow, in order of appearance)."""
    stats: dict[str, Any] = exercise_report(store, slug, track_names)["stats"]
    return stats


def common_failures(
    store: Store, slug: str, track_names: Mapping[str, Sequence[str]], top: int = TOP_FAILURES
) -> dict[str, list[dict[str, Any]]]:
    """Per track, the ``top`` most frequent ``{message, count, test}`` of failed tests
    (``test`` is None for a failure of the whole run, e.g. a syntax error)."""
    failures: dict[str, list[dict[str, Any]]] = exercise_report(store, slug, track_names, top)[
        "failures"
    ]
    return failures


def recent_submissions(store: Store, slug: str, limit: int = RECENT) -> list[dict[str, Any]]:
    """The newest Submit rows of an exercise, newest first, with their code."""
    query = (
        select(
            SubmissionRow.id,
            SubmissionRow.learner,
            SubmissionRow.track,
            SubmissionRow.status,
            SubmissionRow.passed,
            SubmissionRow.total,
            SubmissionRow.created_at,
            SubmissionRow.code,
        )
        .where(SubmissionRow.exercise == slug)
        .where(SubmissionRow.mode == SUBMIT)
        .order_by(SubmissionRow.created_at.desc(), SubmissionRow.id.desc())
        .limit(limit)
    )
    try:
        with store.engine.connect() as connection:
            rows = connection.execute(query).all()
    except OperationalError as exc:
        raise StoreUnavailable(str(exc.orig)) from exc
    return [
        {
            "id": row.id,
            "learner": short_learner(row.learner),
            "track": row.track,
            "status": row.status,
            "passed": row.passed,
            "total": row.total,
            "created_at": _aware(row.created_at).isoformat(),
            "code": row.code,
        }
        for row in rows
    ]


def overview(store: Store) -> dict[tuple[str, str], dict[str, int]]:
    """Per (exercise, track): Submit count, how many passed, and distinct learners."""
    query = (
        select(
            SubmissionRow.exercise,
            SubmissionRow.track,
            func.count(),
            func.sum(case((SubmissionRow.status == "pass", 1), else_=0)),
            func.count(SubmissionRow.learner.distinct()),
        )
        .where(SubmissionRow.mode == SUBMIT)
        .group_by(SubmissionRow.exercise, SubmissionRow.track)
    )
    try:
        with store.engine.connect() as connection:
            rows = connection.execute(query).all()
    except OperationalError as exc:
        raise StoreUnavailable(str(exc.orig)) from exc
    return {
        (exercise, track): {
            "submissions": int(count),
            "passed": int(passed or 0),
            "learners": int(learners),
        }
        for exercise, track, count, passed, learners in rows
    }


# --- CSV export ---

_CSV_SELECT = select(*(getattr(SubmissionRow, c) for c in CSV_COLUMNS))


def _csv_batch(store: Store, exercise: str | None, after: tuple[datetime, str] | None) -> list[Any]:
    """The next rows in (created_at, id) order: keyset pages, one short query each."""
    query = _CSV_SELECT.order_by(SubmissionRow.created_at, SubmissionRow.id).limit(CSV_BATCH)
    if exercise is not None:
        query = query.where(SubmissionRow.exercise == exercise)
    if after is not None:
        stamp, sub_id = after
        query = query.where(
            or_(
                SubmissionRow.created_at > stamp,
                and_(SubmissionRow.created_at == stamp, SubmissionRow.id > sub_id),
            )
        )
    try:
        with store.engine.connect() as connection:
            return list(connection.execute(query).all())
    except OperationalError as exc:
        raise StoreUnavailable(str(exc.orig)) from exc


def _csv_text(rows: Sequence[Any], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header:
        writer.writerow(CSV_COLUMNS)
    for row in rows:
        values = dict(zip(CSV_COLUMNS, row, strict=True))
        values["created_at"] = _aware(values["created_at"]).isoformat()
        values["learner"] = short_learner(values["learner"])
        writer.writerow(values[c] for c in CSV_COLUMNS)
    return buffer.getvalue()


class SubmissionsCsv:
    """Every submission (Run and Submit) as CSV, oldest first, all columns but the result.

    ``first()`` reads the first page (call it before answering, so a database error is
    still a JSON 503); iterating then yields the CSV text page by page.
    """

    def __init__(self, store: Store, exercise: str | None = None) -> None:
        self.store = store
        self.exercise = exercise
        self._first: list[Any] | None = None

    def first(self) -> None:
        self._first = _csv_batch(self.store, self.exercise, None)

    def __iter__(self) -> Iterator[str]:
        rows = self._first
        if rows is None:
            rows = _csv_batch(self.store, self.exercise, None)
        yield _csv_text(rows, header=True)
        while len(rows) == CSV_BATCH:
            last = rows[-1]
            rows = _csv_batch(self.store, self.exercise, (last.created_at, last.id))
            yield _csv_text(rows, header=False)


def submissions_csv(store: Store, exercise: str | None = None) -> str:
    """The whole export as one string (for tests and small exports)."""
    return "".join(SubmissionsCsv(store, exercise))
