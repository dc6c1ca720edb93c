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
import json
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
# What the pages show of text a submission controls: a stored failure message or code can
# be huge (a hostile submission), and the pages must stay small whatever the grader kept.
MESSAGE_CHARS = 1_000
CODE_PREVIEW_CHARS = 20_000  # far above a real solution; the JSON export has all of it
CLIPPED = "…"
CSV_BATCH = 500
CSV_COLUMNS = (  # also the JSON export's keys
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


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, ending with a visible marker if cut."""
    return text if len(text) <= limit else text[: limit - len(CLIPPED)] + CLIPPED


def _failures_of(result: Any) -> list[tuple[str | None, str]]:
    """(test name, message) of every failed test of a stored result (or of the run), the
    message clipped: messages are grouped by what the page shows."""
    if not isinstance(result, dict):
        return []
    tests = result.get("tests") or []
    found: list[tuple[str | None, str]] = [
        (str(t.get("name", "")), clip(str(t.get("message") or ""), MESSAGE_CHARS))
        for t in tests
        if isinstance(t, dict) and t.get("status") != "pass"
    ]
    if not tests and result.get("status") != "pass" and result.get("message"):
        found.append((WHOLE_RUN, clip(str(result["message"]), MESSAGE_CHARS)))
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
    (``test`` is None for a failure of the whole run, e.g. a syntax error); messages are
    clipped to ``MESSAGE_CHARS`` and counted as clipped."""
    failures: dict[str, list[dict[str, Any]]] = exercise_report(store, slug, track_names, top)[
        "failures"
    ]
    return failures


def recent_submissions(store: Store, slug: str, limit: int = RECENT) -> list[dict[str, Any]]:
    """The newest Submit rows of an exercise, newest first, with their code clipped to
    ``CODE_PREVIEW_CHARS`` (``code_clipped`` tells whether it was)."""
    # Only one character past the preview is read: enough to know the code was longer.
    preview = func.substr(SubmissionRow.code, 1, CODE_PREVIEW_CHARS + 1).label("code")
    query = (
        select(
            SubmissionRow.id,
            SubmissionRow.learner,
            SubmissionRow.track,
            SubmissionRow.status,
            SubmissionRow.passed,
            SubmissionRow.total,
            SubmissionRow.created_at,
            preview,
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
            "code": clip(row.code, CODE_PREVIEW_CHARS),
            "code_clipped": len(row.code) > CODE_PREVIEW_CHARS,
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


# --- exports (CSV and JSON) ---

_EXPORT_SELECT = select(*(getattr(SubmissionRow, c) for c in CSV_COLUMNS))
# Spreadsheets read a cell that starts with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _export_batch(
    store: Store, exercise: str | None, after: tuple[datetime, str] | None
) -> list[Any]:
    """The next rows in (created_at, id) order: keyset pages, one short query each."""
    query = _EXPORT_SELECT.order_by(SubmissionRow.created_at, SubmissionRow.id).limit(CSV_BATCH)
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


def _record(row: Any) -> dict[str, Any]:
    """One exported row: every column, the learner as a pseudonym, the time in UTC."""
    values = dict(zip(CSV_COLUMNS, row, strict=True))
    values["created_at"] = _aware(values["created_at"]).isoformat()
    values["learner"] = short_learner(values["learner"])
    return values


def spreadsheet_safe(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula.

    OWASP, "CSV Injection" (https://owasp.org/www-community/attacks/CSV_Injection): a cell
    that begins with ``=``, ``+``, ``-``, ``@``, tab (0x09) or carriage return (0x0D) is
    read as a formula, so such a cell gets a single quote prepended (``'=1+1`` shows as
    ``=1+1``). Applied to every text cell, since the code is the learner's and any text
    column may one day be; numbers are left as they are. The JSON export keeps the exact
    text.
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _csv_text(rows: Sequence[Any], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header:
        writer.writerow(CSV_COLUMNS)
    for row in rows:
        values = _record(row)
        writer.writerow(spreadsheet_safe(values[c]) for c in CSV_COLUMNS)
    return buffer.getvalue()


def _json_text(rows: Sequence[Any], first: bool) -> str:
    # ensure_ascii: the bytes are plain ASCII whatever the code holds; the text still
    # decodes to exactly what was submitted.
    text = ",\n".join(json.dumps(_record(row)) for row in rows)
    return text if first or not text else ",\n" + text


class _Export:
    """Every submission (Run and Submit), oldest first, all columns but the result.

    ``first()`` reads the first page (call it before answering, so a database error is
    still a JSON 503); iterating then yields the export's text page by page.
    """

    def __init__(self, store: Store, exercise: str | None = None) -> None:
        self.store = store
        self.exercise = exercise
        self._first: list[Any] | None = None

    def first(self) -> None:
        self._first = _export_batch(self.store, self.exercise, None)

    def _pages(self) -> Iterator[list[Any]]:
        rows = self._first
        if rows is None:
            rows = _export_batch(self.store, self.exercise, None)
        yield rows
        while len(rows) == CSV_BATCH:
            last = rows[-1]
            rows = _export_batch(self.store, self.exercise, (last.created_at, last.id))
            yield rows


class SubmissionsCsv(_Export):
    """The export as CSV, a header row first; text cells made spreadsheet-safe (a quote
    before a leading ``=``, ``+``, ``-``, ``@``, tab or CR: see ``spreadsheet_safe``)."""

    def __iter__(self) -> Iterator[str]:
        for i, rows in enumerate(self._pages()):
            yield _csv_text(rows, header=i == 0)


class SubmissionsJson(_Export):
    """The export as one JSON array of objects keyed by ``CSV_COLUMNS``, streamed page by
    page (an array rather than JSON Lines: any JSON reader takes it whole). The code is
    exactly what was submitted: no spreadsheet quote."""

    def __iter__(self) -> Iterator[str]:
        yield "[\n"
        first = True
        for rows in self._pages():
            yield _json_text(rows, first)
            first = first and not rows
        yield "\n]\n"


def submissions_csv(store: Store, exercise: str | None = None) -> str:
    """The whole CSV export as one string (for tests and small exports)."""
    return "".join(SubmissionsCsv(store, exercise))


def submissions_json(store: Store, exercise: str | None = None) -> str:
    """The whole JSON export as one string (for tests and small exports)."""
    return "".join(SubmissionsJson(store, exercise))
