"""The instructor's exports of every submission, as CSV and as JSON, page by page.

Keyset pages of ``CSV_BATCH`` rows (one short query each, whatever the table's size),
learners as the dashboard's pseudonyms, times in UTC, each submission's test statuses by
test id; the CSV made safe for spreadsheets. Blocking: the routes stream them from the
thread pool.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select

from app.stats import as_utc, short_learner
from app.store import Store, database_errors
from app.tables import SubmissionRow, SubmissionTestRow

T = SubmissionTestRow

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
    "regrade_of",  # the grading a regrade replaces (app.regrade); empty for a learner's own
    "tests",  # each test's status by test id (a test stored before ids: by name), as JSON
)
TABLE_COLUMNS = CSV_COLUMNS[:-1]  # the ones read from the submissions table


_EXPORT_SELECT = select(*(getattr(SubmissionRow, c) for c in TABLE_COLUMNS))
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
    with database_errors(), store.engine.connect() as connection:
        return list(connection.execute(query).all())


def _record(row: Any, tests: Mapping[str, dict[str, str]]) -> dict[str, Any]:
    """One exported row: every column, the learner as a pseudonym, the time in UTC, and
    its tests' statuses by id."""
    values = dict(zip(TABLE_COLUMNS, row, strict=True))
    values["created_at"] = as_utc(values["created_at"]).isoformat()
    values["learner"] = short_learner(values["learner"])
    values["tests"] = tests.get(values["id"], {})
    return values


def _tests_of(store: Store, rows: Sequence[Any]) -> dict[str, dict[str, str]]:
    """Each exported submission's ``{test id: status}``, in the result's order."""
    if not rows:
        return {}
    query = (
        select(T.submission_id, T.test_id, T.test, T.status)
        .where(T.submission_id.in_([row.id for row in rows]), T.test.is_not(None))
        .order_by(T.submission_id, T.position)
    )
    with database_errors(), store.engine.connect() as connection:
        found = connection.execute(query).all()
    tests: dict[str, dict[str, str]] = {}
    for sub_id, test_id, name, status in found:
        tests.setdefault(sub_id, {})[str(test_id or name)] = status
    return tests


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


def _csv_text(rows: Sequence[Any], tests: Mapping[str, dict[str, str]], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if header:
        writer.writerow(CSV_COLUMNS)
    for row in rows:
        values = _record(row, tests)
        values["tests"] = json.dumps(values["tests"])  # a cell: the object as JSON text
        writer.writerow(spreadsheet_safe(values[c]) for c in CSV_COLUMNS)
    return buffer.getvalue()


def _json_text(rows: Sequence[Any], tests: Mapping[str, dict[str, str]], first: bool) -> str:
    # ensure_ascii: the bytes are plain ASCII whatever the code holds; the text still
    # decodes to exactly what was submitted.
    text = ",\n".join(json.dumps(_record(row, tests)) for row in rows)
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

    def _pages(self) -> Iterator[tuple[list[Any], dict[str, dict[str, str]]]]:
        rows = self._first
        if rows is None:
            rows = _export_batch(self.store, self.exercise, None)
        yield rows, _tests_of(self.store, rows)
        while len(rows) == CSV_BATCH:
            last = rows[-1]
            rows = _export_batch(self.store, self.exercise, (last.created_at, last.id))
            yield rows, _tests_of(self.store, rows)


class SubmissionsCsv(_Export):
    """The export as CSV, a header row first; text cells made spreadsheet-safe (a quote
    before a leading ``=``, ``+``, ``-``, ``@``, tab or CR: see ``spreadsheet_safe``)."""

    def __iter__(self) -> Iterator[str]:
        for i, (rows, tests) in enumerate(self._pages()):
            yield _csv_text(rows, tests, header=i == 0)


class SubmissionsJson(_Export):
    """The export as one JSON array of objects keyed by ``CSV_COLUMNS``, streamed page by
    page (an array rather than JSON Lines: any JSON reader takes it whole). The code is
    exactly what was submitted: no spreadsheet quote."""

    def __iter__(self) -> Iterator[str]:
        yield "[\n"
        first = True
        for rows, tests in self._pages():
            yield _json_text(rows, tests, first)
            first = first and not rows
        yield "\n]\n"


def submissions_csv(store: Store, exercise: str | None = None) -> str:
    """The whole CSV export as one string (for tests and small exports)."""
    return "".join(SubmissionsCsv(store, exercise))


def submissions_json(store: Store, exercise: str | None = None) -> str:
    """The whole JSON export as one string (for tests and small exports)."""
    return "".join(SubmissionsJson(store, exercise))
