"""Regrading: stored Submits graded again against the exercise's current tests.

An instructor who fixes a test regrades the submissions made before the fix. Each
regraded submission gets a *new* row: the same learner and code, the current exercise
version, the new verdict, ``regrade_of`` naming the row it replaces and ``regrade_run``
the run; the old row stays as it was (history is kept), marked ``superseded``, with its
tests' rows, in the transaction that stores the new one. Only a submission's newest
grading counts, for a learner's progress as on the dashboard (app.stats): a regrade
replaces a grading, it adds no Submit. A run is resumable: a row already regraded against
the current version is not regraded again, and the store keeps one regrade per row.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from app.lti.outbox import note_standing
from app.store import (
    Store,
    aware,
    database_errors,
    new_id,
    not_superseded,
    now,
    write_regrades,
)
from app.tables import ExerciseVersionRow, RegradeRunRow, SubmissionRow
from graders.errors import DrillError
from graders.grading.catalog import Exercise
from graders.grading.grader import Grader
from graders.grading.results import GradeResult, Status

log = logging.getLogger("drill.regrade")
PASS = Status.PASS.value


class RegradeError(DrillError):
    """A regrade that cannot start (an unknown version, a bad date)."""


@dataclass(frozen=True)
class Stored:
    """A stored Submit to regrade."""

    id: str
    learner: str
    track: str
    version: str
    created_at: datetime
    code: str
    result: dict[str, Any]


ABSENT = "absent"  # test_changes' "was" of a test the old result did not have
NOT_RUN = Status.NOT_RUN.value


def failing(status: str) -> bool:
    """Whether a test's status is a failure as the statistics count one: it ran and did not
    pass (fail, error). A test that did not run, or did not exist, is no failure."""
    return status not in (PASS, NOT_RUN, ABSENT)


@dataclass
class TestTally:
    """How one test's verdict changed, in how many regraded Submits. ``to_pass`` and
    ``to_fail`` are what an instructor reads as "now pass" and "now fail"; a test new to a
    Submit (its old result did not have it) counts in ``new`` and, if it fails there, in
    ``to_fail`` too: the failures a new test finds are the news of a regrade."""

    name: str
    to_pass: int = 0  # passes now; existed before and did not pass (failed, or did not run)
    to_fail: int = 0  # fails now (ran, did not pass); did not before (passed, not run, new)
    stopped: int = 0  # passed before; did not run now (an earlier test ended the run)
    new: int = 0  # Submits whose old result did not have this test
    new_pass: int = 0  # of those, the ones it passes now (neither now pass nor now fail)
    new_fail: int = 0  # of those, the ones it fails now (counted in to_fail as well)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "to_pass": self.to_pass,
            "to_fail": self.to_fail,
            "stopped": self.stopped,
            "new": self.new,
            "new_pass": self.new_pass,
            "new_fail": self.new_fail,
        }


@dataclass
class Summary:
    """What a run changed: whole verdicts, and per (track, test id)."""

    regraded: int = 0
    changed: int = 0
    to_pass: int = 0  # verdicts that became pass
    to_fail: int = 0  # verdicts that were pass and are not any more
    other: int = 0  # changed between fail and error
    tests: dict[str, dict[str, TestTally]] = field(default_factory=dict)  # track -> id -> tally

    def as_dict(self) -> dict[str, Any]:
        return {
            "regraded": self.regraded,
            "changed": self.changed,
            "to_pass": self.to_pass,
            "to_fail": self.to_fail,
            "other": self.other,
            "tests": {
                track: {test_id: t.as_dict() for test_id, t in tests.items()}
                for track, tests in self.tests.items()
            },
        }


@dataclass(frozen=True)
class Regraded:
    """One submission's regrade: its old row and its new verdict."""

    old: Stored
    result: GradeResult
    changes: list[dict[str, Any]]  # [{id, name, was, now}]


def parse_since(store: Store, slug: str, since: str | None) -> datetime | None:
    """The time ``--since`` stands for: a version (its hash, a prefix of at least 6
    characters, or ``vN`` as the dashboard numbers them) went live, or a date or time
    (ISO 8601; UTC unless it says otherwise)."""
    if since is None:
        return None
    text = since.strip()
    versions = _versions(store, slug)
    if text[:1] in "vV" and text[1:].isdigit():
        number = int(text[1:])
        if not 1 <= number <= len(versions):
            raise RegradeError(
                f"--since {text}: {slug} has {len(versions)} known versions (v1 to "
                f"v{len(versions)})"
            )
        return versions[number - 1][1]
    matches = [at for version, at in versions if len(text) >= 6 and version.startswith(text)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise RegradeError(f"--since {text}: more than one version of {slug} starts so")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        known = ", ".join(f"v{n} ({v[:8]})" for n, (v, _) in enumerate(versions, 1))
        raise RegradeError(
            f"--since {text!r} is neither a version of {slug} ({known or 'none known yet'}) "
            "nor a date such as 2026-12-01 or 2026-12-01T14:00"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _versions(store: Store, slug: str) -> list[tuple[str, datetime]]:
    query = (
        select(ExerciseVersionRow.version, ExerciseVersionRow.went_live_at)
        .where(ExerciseVersionRow.exercise == slug)
        .order_by(ExerciseVersionRow.went_live_at, ExerciseVersionRow.version)
    )
    with store.engine.connect() as connection:
        return [(v, aware(at)) for v, at in connection.execute(query)]


def to_regrade(
    store: Store, exercise: Exercise, track: str | None, since: datetime | None
) -> list[Stored]:
    """The Submits of ``exercise`` to regrade, oldest first: each submission's newest
    grading, when it was graded against another version than the current one."""
    s = SubmissionRow
    query = (
        select(s.id, s.learner, s.track, s.exercise_version, s.created_at, s.code, s.result)
        .where(s.exercise == exercise.slug, s.mode == "submit")
        .where(s.exercise_version != exercise.version)
        .where(s.track.in_([track] if track else list(exercise.tracks)))
        .where(not_superseded())
        .order_by(s.created_at, s.id)
    )
    if since is not None:
        query = query.where(s.created_at >= since)
    with database_errors(), store.engine.connect() as connection:
        rows = connection.execute(query).all()
    return [
        Stored(r.id, r.learner, r.track, r.exercise_version, aware(r.created_at), r.code, r.result)
        for r in rows
    ]


def test_changes(old: dict[str, Any], new: GradeResult) -> list[dict[str, Any]]:
    """The tests whose status differs between a stored result and a new one, matched by
    id (by name for a result stored before ids existed). A test new since then was
    ``absent``; one that no longer exists is not listed (it has no verdict now)."""
    before: dict[str, str] = {}
    for test in old.get("tests") or []:
        if isinstance(test, dict):
            key = test.get("id") or test.get("name")
            if isinstance(key, str):
                before[key] = str(test.get("status"))
    changes = []
    for test in new.tests:
        was = before.get(test.id or "", before.get(test.name, ABSENT))
        if was != test.status.value:
            changes.append({"id": test.id, "name": test.name, "was": was, "now": test.status.value})
    return changes


def _tally(summary: Summary, item: Regraded) -> None:
    summary.regraded += 1
    was, now_ = str(item.old.result.get("status")), item.result.status.value
    if was != now_:
        summary.changed += 1
        if now_ == PASS:
            summary.to_pass += 1
        elif was == PASS:
            summary.to_fail += 1
        else:
            summary.other += 1
    for change in item.changes:
        tests = summary.tests.setdefault(item.old.track, {})
        tally = tests.setdefault(change["id"] or change["name"], TestTally(change["name"]))
        was, now_ = change["was"], change["now"]
        if was == ABSENT:  # a test new to this Submit: whatever it says now is news
            tally.new += 1
            tally.new_pass += now_ == PASS
            tally.new_fail += failing(now_)
        elif now_ == PASS:
            tally.to_pass += 1
        elif was == PASS and now_ == NOT_RUN:
            tally.stopped += 1
        if failing(now_) and not failing(was):
            tally.to_fail += 1


@dataclass
class Run:
    """A regrade run: pick the submissions, then :meth:`execute` grades them."""

    store: Store
    grader: Grader
    exercise: Exercise
    track: str | None
    since: str | None
    dry_run: bool
    submissions: list[Stored] = field(default_factory=list)
    id: str = field(default_factory=new_id)
    summary: Summary = field(default_factory=Summary)
    seconds: float = 0.0

    @classmethod
    def plan(
        cls,
        store: Store,
        grader: Grader,
        slug: str,
        track: str | None = None,
        since: str | None = None,
        dry_run: bool = False,
    ) -> Run:
        exercise = grader.catalog.get(slug)  # UnknownExercise for a slug it lacks
        if track is not None:
            exercise.track(track)
        store.note_version(exercise.slug, exercise.version)
        chosen = to_regrade(store, exercise, track, parse_since(store, slug, since))
        return cls(store, grader, exercise, track, since, dry_run, chosen)

    def execute(self, workers: int, progress: Callable[[Regraded], None] | None = None) -> Summary:
        """Grade every chosen submission (``workers`` at a time, through the grader's
        pools or queue), store each new verdict (unless a dry run) and tally."""
        started = time.perf_counter()
        if not self.dry_run and self.submissions:
            self._start()
        for item in self._graded(workers):
            if not self.dry_run and not self._store(item):
                continue  # regraded by someone else meanwhile: theirs stands
            _tally(self.summary, item)
            if progress is not None:
                progress(item)
        self.seconds = time.perf_counter() - started
        if not self.dry_run and self.submissions:
            self._finish()
        return self.summary

    def _graded(self, workers: int) -> Iterator[Regraded]:
        def grade(old: Stored) -> Regraded:
            exercise = self.exercise
            result = self.grader.grade(exercise, old.track, old.code, "submit", learner=old.learner)
            return Regraded(old, result, test_changes(old.result, result))

        with ThreadPoolExecutor(max(1, workers), "regrade") as pool:
            yield from pool.map(grade, self.submissions)

    def _start(self) -> None:
        row = {
            "id": self.id,
            "exercise": self.exercise.slug,
            "track": self.track,
            "since": self.since,
            "version": self.exercise.version,
            "started_at": now(),
            "finished_at": None,
            "summary": None,
        }
        with self.store.engine.begin() as connection:
            connection.execute(insert(RegradeRunRow), row)

    def _finish(self) -> None:
        query = (
            update(RegradeRunRow)
            .where(RegradeRunRow.id == self.id)
            .values(finished_at=now(), summary=self.summary.as_dict())
        )
        with self.store.engine.begin() as connection:
            connection.execute(query)

    def _store(self, item: Regraded) -> bool:
        """Store the new grading beside the old one; False if the old one was regraded
        already (the store keeps one regrade per row)."""
        old, result, stamp = item.old, item.result, now()
        sub_id = new_id()
        info = {
            "of": old.id,
            "run": self.id,
            "submitted_at": _submitted_at(old).isoformat(),
            "previous_status": str(old.result.get("status")),
            "previous_passed": int(old.result.get("passed") or 0),
            "previous_total": int(old.result.get("total") or 0),
            "previous_version": old.version,
            "changed": item.changes,
        }
        shown = {
            "id": sub_id,
            **result.model_dump(mode="json"),
            "created_at": stamp.isoformat(),
            "regrade": info,
        }
        row = {
            "id": sub_id,
            "learner": old.learner,
            "exercise": self.exercise.slug,
            "track": old.track,
            "mode": "submit",
            "exercise_version": self.exercise.version,
            "status": result.status.value,
            "passed": result.passed,
            "total": result.total,
            "duration_ms": result.duration_ms,
            "created_at": stamp,
            "code": old.code,
            "result": shown,
            "regrade_of": old.id,
            "regrade_run": self.id,
        }
        try:
            # One transaction: the new rows, and the old ones marked superseded.
            with database_errors(), self.store.engine.begin() as connection:
                write_regrades(connection, [row])
        except IntegrityError:
            return False
        # An LMS that grades this assignment gets the new standing (the server's sender
        # posts it from the stored outbox; this never raises).
        note_standing(self.store, old.learner, self.exercise.slug, old.track)
        return True


def _submitted_at(old: Stored) -> datetime:
    """When the learner sent the code: a regrade's row keeps the first time."""
    regrade = old.result.get("regrade")
    if isinstance(regrade, dict) and isinstance(regrade.get("submitted_at"), str):
        try:
            return datetime.fromisoformat(regrade["submitted_at"])
        except ValueError:
            pass
    return old.created_at


def runs(store: Store, slug: str, limit: int = 20) -> list[dict[str, Any]]:
    """The exercise's regrade runs, newest first, as stored."""
    r = RegradeRunRow
    query = (
        select(r.id, r.track, r.since, r.version, r.summary, r.started_at, r.finished_at)
        .where(RegradeRunRow.exercise == slug)
        .order_by(RegradeRunRow.started_at.desc())
        .limit(limit)
    )
    with database_errors(), store.engine.connect() as connection:
        rows = connection.execute(query).all()
    return [
        {
            **row._asdict(),
            "started_at": aware(row.started_at).isoformat(),
            "finished_at": aware(row.finished_at).isoformat() if row.finished_at else None,
        }
        for row in rows
    ]
