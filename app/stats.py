"""Statistics for the instructor dashboard: GROUP BY queries on the submission store.

Only Submit rows (``mode == "submit"``) count: Run only tries the visible examples, so it
says nothing about the hidden tests. Each Submit counts once, by its newest grading: a
regrade (app.regrade) stores a new grading of the same code that replaces the old one
(``regrade_of``), and the old row, marked ``superseded`` with its tests' rows, is left
out (app.store.not_superseded), so a regrade never adds a Submit, here as in a learner's
progress. A version's numbers are those of the Submits whose newest grading is against
it: the versions' numbers add up to every version's. Per-test numbers are aggregated by
the database from ``submission_tests``, one row per test of each stored result (see
app.tables), so a page costs a few grouped queries, not a read of every stored result.
The queries are portable SQL: SQLite and PostgreSQL give the same answers. Every
function is blocking: the routes call them through the thread pool.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, case, func, select
from sqlalchemy.engine import Connection

from app.schemas import (
    CommonFailure,
    ExerciseLearners,
    ExerciseNumbers,
    ExerciseOverview,
    ExerciseReport,
    LearnerCounts,
    RecentSubmission,
    TestStats,
    TrackCounts,
    TrackOverview,
    TrackStats,
    VersionInfo,
)
from app.store import Store, database_errors, not_superseded
from app.tables import MESSAGE_CHARS as MESSAGE_CHARS  # the clip of stored failure messages
from app.tables import (
    NOT_LEARNERS,
    ExerciseVersionRow,
    SubmissionRow,
    SubmissionTestRow,
    clip,
)

SUBMIT = "submit"
TOP_FAILURES = 10
RECENT = 20
# What the pages show of code a submission controls: it can be huge (a hostile
# submission), and the pages must stay small. Failure messages are clipped to
# MESSAGE_CHARS when they are stored.
CODE_PREVIEW_CHARS = 20_000  # far above a real solution; the JSON export has all of it
WHOLE_RUN: str | None = None  # the "test" of a failure that stopped the whole run
NOT_RUN = "not_run"  # graders.grading.results.Status.NOT_RUN: a test that never started

S, T, V = SubmissionRow, SubmissionTestRow, ExerciseVersionRow


def as_utc(value: datetime) -> datetime:
    """A stored time in UTC (SQLite gives it back naive)."""
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def short_learner(learner: str) -> str:
    """A pseudonym that tells learners apart. The id itself is the learner's cookie (it
    opens their drafts), so neither the pages nor the export ever show it."""
    return hashlib.sha256(f"drill-learner:{learner}".encode()).hexdigest()[:10]


def _submits_of(slug: str, table: Any = S, version: str | None = None) -> tuple[Any, ...]:
    """Where-clauses of an exercise's Submits (of one exercise version, if given)."""
    where = (table.exercise == slug, table.mode == SUBMIT)
    return where if version is None else (*where, table.exercise_version == version)


def _newest(table: Any) -> tuple[Any, ...]:
    """Where-clauses that keep each Submit's newest grading: its rows (``submissions``) or
    its tests' rows (``submission_tests``) that no regrade replaced. A column of both
    tables and of every statistics index, so the filter costs no look-up per row."""
    return (not_superseded(table),)


@dataclass(frozen=True)
class _Scope:
    """The rows a report counts: an exercise's Submits (of one version, if given), each by
    its newest grading."""

    slug: str
    version: str | None

    def submits(self, table: Any = S) -> tuple[Any, ...]:
        return (*_submits_of(self.slug, table, self.version), *_newest(table))


def _track_counts(connection: Connection, scope: _Scope) -> list[Any]:
    """(track, submissions, passed) of the exercise, the first track submitted to first."""
    query = (
        select(
            S.track,
            func.count(),
            func.sum(case((S.status == "pass", 1), else_=0)),
        )
        .where(*scope.submits())
        .group_by(S.track)
        .order_by(func.min(S.created_at))
    )
    return list(connection.execute(query).all())


def _distinct_learners() -> tuple[Any, Any]:
    """(learners, solved) as aggregates: the distinct learners of the rows, and those of
    them with a passing row (with the newest-grading filter: a passing newest grading)."""
    return (
        func.count(S.learner.distinct()),
        func.count(case((S.status == "pass", S.learner)).distinct()),
    )


def _learners(connection: Connection, scope: _Scope) -> ExerciseLearners:
    """N of M learners of the exercise, in any track and in each."""
    per_track = select(S.track, *_distinct_learners()).where(*scope.submits()).group_by(S.track)
    whole = select(*_distinct_learners()).where(*scope.submits())
    tracks = {
        track: LearnerCounts(learners=int(learners), solved=int(solved))
        for track, learners, solved in connection.execute(per_track)
    }
    learners, solved = connection.execute(whole).one()
    return ExerciseLearners(learners=int(learners), solved=int(solved), tracks=tracks)


def _test_counts(connection: Connection, scope: _Scope) -> list[Any]:
    """(track, test id, test name, runs, failures, not run), in the order results list
    the tests. A test that never started (an earlier one ended the job) is neither a run
    nor a failure of its own; it is counted apart."""
    query = (
        select(
            T.track,
            T.test_id,
            T.test,
            func.sum(case((T.status != NOT_RUN, 1), else_=0)),
            func.sum(case((T.status.not_in(("pass", NOT_RUN)), 1), else_=0)),
            func.sum(case((T.status == NOT_RUN, 1), else_=0)),
        )
        .where(*scope.submits(T), T.test.is_not(None))
        .group_by(T.track, T.test_id, T.test)
        # Not by first appearance (min of id): the index that answers this query has no
        # id, and a position is as good a guide to where a retired test belongs.
        .order_by(func.min(T.position), T.test)
    )
    return list(connection.execute(query).all())


def _blamed_elsewhere(connection: Connection, scope: _Scope) -> list[Any]:
    """(track, test id, test, blame, count) of the failures not due to the learner's code
    (read through their partial index; ``test`` is None for a whole run's error)."""
    query = (
        select(T.track, T.test_id, T.test, T.blame, func.count())
        .where(*scope.submits(T), NOT_LEARNERS)
        .group_by(T.track, T.test_id, T.test, T.blame)
    )
    return list(connection.execute(query).all())


def _top_failures(connection: Connection, scope: _Scope, track: str, top: int) -> list[Any]:
    """(test id, test, message, count) of a track's ``top`` most frequent failures, most frequent
    first; among equal counts, the one stored first comes first. One query per track:
    each reads its track's failures through a partial index and keeps only the top ones
    (a bounded sort), which measured twice as fast as ranking every track's groups at
    once with a window function (100,000 submissions, PostgreSQL)."""
    query = (
        select(T.test_id, T.test, T.message, func.count())
        .where(*scope.submits(T), T.track == track, T.status != "pass")
        .where(T.status != NOT_RUN)  # not a failure: the failure is the test that stopped
        .group_by(T.test_id, T.test, T.message)
        .order_by(func.count().desc(), func.min(T.id))
        .limit(top)
    )
    return list(connection.execute(query).all())


TrackTests = Mapping[str, Sequence[tuple[str, str]]]  # track -> [(test id, its name now)]


def _key(test_id: str | None, name: str | None, ids_by_name: Mapping[str, str]) -> str:
    """What a stored test row counts under: its id; for a row stored before ids existed,
    the id of today's test of that name, or else the name itself (marked apart)."""
    if test_id:
        return test_id
    return ids_by_name.get(name or "", f"{LEGACY_PREFIX}{name}")


LEGACY_PREFIX = "\0name:"  # no id holds a NUL: a legacy name never passes for an id


@dataclass
class _Tally:
    """A test's numbers while the rows of a report are added up."""

    name: str
    runs: int = 0
    failures: int = 0
    not_run: int = 0
    blamed_elsewhere: dict[str, int] = field(default_factory=dict)


@dataclass
class _Track:
    submissions: int = 0
    passed: int = 0
    tests: dict[str, _Tally] = field(default_factory=dict)
    blamed_elsewhere: dict[str, int] = field(default_factory=dict)


def _report(
    store: Store,
    slug: str,
    track_tests: TrackTests,
    top: int | None,
    with_tests: bool = True,
    version: str | None = None,
) -> ExerciseReport:
    """The report's parts asked for: stats (``with_tests``: with per-test numbers) and,
    if ``top`` is not None, each track's most common failures; of one exercise
    ``version`` if given, else of every version."""
    with database_errors(), store.engine.connect() as connection:
        scope = _Scope(slug, version)
        counts = _track_counts(connection, scope)
        tests = _test_counts(connection, scope) if with_tests else []
        elsewhere = _blamed_elsewhere(connection, scope) if with_tests else []
        failures = {}
        if top is not None:  # only tracks with Submits can have failures
            failures = {t: _top_failures(connection, scope, t, top) for t, _, _ in counts}

    # Every track of the exercise, even without submissions; then any track it no longer
    # has that was submitted to, in the order of its first Submit. Tests are keyed by id
    # and shown by today's name; a retired test by the name it was last stored with.
    tracks: dict[str, _Track] = {}
    current: dict[str, dict[str, str]] = {t: dict(pairs) for t, pairs in track_tests.items()}
    by_name = {t: {n: i for i, n in pairs} for t, pairs in track_tests.items()}

    def track_of(name: str) -> _Track:
        if name not in tracks:
            pairs = track_tests.get(name, ())
            tracks[name] = _Track(tests={i: _Tally(n) for i, n in pairs})
        return tracks[name]

    for name in track_tests:
        track_of(name)
    for track, submissions, passed in counts:
        numbers = track_of(track)
        numbers.submissions, numbers.passed = int(submissions), int(passed or 0)
    for track, test_id, test, runs, failed, not_run in tests:
        # Tests of the reference keep its order; tests seen only in older results follow.
        key = _key(test_id, test, by_name.get(track, {}))
        tally = track_of(track).tests.setdefault(key, _Tally(test))
        tally.runs += int(runs or 0)
        tally.failures += int(failed or 0)
        tally.not_run += int(not_run or 0)
    for track, test_id, test, blame, number in elsewhere:
        numbers = track_of(track)
        numbers.blamed_elsewhere[blame] = numbers.blamed_elsewhere.get(blame, 0) + int(number)
        if test is not None:
            key = _key(test_id, test, by_name.get(track, {}))
            tally = numbers.tests.setdefault(key, _Tally(test))
            tally.blamed_elsewhere[blame] = tally.blamed_elsewhere.get(blame, 0) + int(number)
    top_failures: dict[str, list[CommonFailure]] = {name: [] for name in tracks}
    for track, found in failures.items():
        merged: dict[tuple[str | None, str], CommonFailure] = {}
        for test_id, test, message, number in found:
            found_key: str | None = None
            if test is not None:
                found_key = _key(test_id, test, by_name.get(track, {}))
            shown = current.get(track, {}).get(found_key or "", test)
            entry = merged.setdefault(
                (found_key, message or ""),
                CommonFailure(
                    message=message or "", count=0, test=shown, test_id=_public(found_key)
                ),
            )
            entry.count += int(number)
        top_failures[track] = sorted(merged.values(), key=lambda e: -e.count)
    stats = ExerciseNumbers(
        slug=slug,
        version=version,
        tracks={
            name: TrackStats(
                submissions=numbers.submissions,
                passed=numbers.passed,
                tests=[
                    TestStats(
                        id=_public(key),
                        name=t.name,
                        runs=t.runs,
                        failures=t.failures,
                        not_run=t.not_run,
                        blamed_elsewhere=t.blamed_elsewhere,
                    )
                    for key, t in numbers.tests.items()
                ],
                blamed_elsewhere=numbers.blamed_elsewhere,
            )
            for name, numbers in tracks.items()
        },
    )
    return ExerciseReport(stats=stats, failures=top_failures)


def _public(key: str | None) -> str | None:
    """A key as the API shows it: an id, or None for a test known by its old name only."""
    return None if key is None or key.startswith(LEGACY_PREFIX) else key


def exercise_report(
    store: Store,
    slug: str,
    track_tests: TrackTests,
    top: int = TOP_FAILURES,
    version: str | None = None,
) -> ExerciseReport:
    """Stats and the most common failure messages of every track (what the exercise's
    page shows): ``stats`` as exercise_stats gives them, ``failures`` as common_failures."""
    return _report(store, slug, track_tests, top, version=version)


def exercise_stats(
    store: Store, slug: str, track_tests: TrackTests, version: str | None = None
) -> ExerciseNumbers:
    """Per track, submissions, passes and each test's id, name, runs, failures and not_run
    (each Submit once, by its newest grading; ``runs``: the Submits that ran the test;
    ``not_run``: those that ended before it started), of one exercise ``version`` or of
    all; ``track_tests`` maps each track of the exercise to its hidden tests' (id, name)
    in order (tests seen only in older results follow, in the order results list them).
    A test keeps its numbers across a rename of its display name: rows are keyed by id."""
    return _report(store, slug, track_tests, top=None, version=version).stats


def common_failures(
    store: Store,
    slug: str,
    track_tests: TrackTests,
    top: int = TOP_FAILURES,
    version: str | None = None,
) -> dict[str, list[CommonFailure]]:
    """Per track, the ``top`` most frequent failures (message, count, test, test_id) of failed
    tests (``test`` is None for a failure of the whole run, e.g. a syntax error); messages
    are clipped to ``MESSAGE_CHARS`` and counted as clipped."""
    return _report(store, slug, track_tests, top, with_tests=False, version=version).failures


def learner_counts(store: Store, slug: str, version: str | None = None) -> ExerciseLearners:
    """How many learners solved the exercise, of how many who tried it ("N of M"), in any
    track and in each: ``learners`` made a Submit (counted as the report counts them: of
    one exercise ``version`` if given), ``solved`` of them have a Submit whose newest
    grading passes. A learner of both tracks counts once for the exercise."""
    with database_errors(), store.engine.connect() as connection:
        return _learners(connection, _Scope(slug, version))


def exercise_versions(store: Store, slug: str) -> list[VersionInfo]:
    """The versions of an exercise known to the store, oldest first (``number`` counts
    from 1; ``submissions``: the Submits whose newest grading is against it, so that each
    Submit counts in one version; ``regraded``: its gradings a regrade replaced since)."""
    versions = select(V.version, V.went_live_at).where(V.exercise == slug)
    with database_errors(), store.engine.connect() as connection:
        counted = case((not_superseded(S), 1), else_=0)
        counts = (
            select(S.exercise_version, func.count(), func.sum(counted))
            .where(*_submits_of(slug))
            .group_by(S.exercise_version)
        )
        live = {v: as_utc(at) for v, at in connection.execute(versions)}
        # version -> (its Submits by their newest grading, its gradings replaced since)
        submitted = {
            v: (int(c or 0), int(n) - int(c or 0)) for v, n, c in connection.execute(counts)
        }
    known = sorted(live, key=lambda v: (live[v], v))
    return [
        VersionInfo(
            version=version,
            went_live_at=live[version].isoformat(),
            number=number,
            submissions=submitted.get(version, (0, 0))[0],
            regraded=submitted.get(version, (0, 0))[1],
        )
        for number, version in enumerate(known, start=1)
    ]


def learners_named(store: Store, slug: str, pseudonym: str) -> list[str]:
    """The learners (ids) of the exercise's Submits whose pseudonym (``short_learner``) is
    ``pseudonym``. Pseudonyms are not stored: the exercise's learners are hashed here."""
    query = select(SubmissionRow.learner).where(*_submits_of(slug)).distinct()
    with database_errors(), store.engine.connect() as connection:
        learners = connection.execute(query).scalars().all()
    return [learner for learner in learners if short_learner(learner) == pseudonym]


def recent_submissions(
    store: Store, slug: str, limit: int = RECENT, learner: str | None = None
) -> list[RecentSubmission]:
    """The newest Submit rows of an exercise, newest first, with their code clipped to
    ``CODE_PREVIEW_CHARS`` (``code_clipped`` tells whether it was); with ``learner`` (a
    pseudonym), only that learner's."""
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
            SubmissionRow.regrade_of,
            preview,
        )
        .where(SubmissionRow.exercise == slug)
        .where(SubmissionRow.mode == SUBMIT)
        .order_by(SubmissionRow.created_at.desc(), SubmissionRow.id.desc())
        .limit(limit)
    )
    if learner is not None:
        learners = learners_named(store, slug, learner)
        if not learners:
            return []
        query = query.where(SubmissionRow.learner.in_(learners))
    with database_errors(), store.engine.connect() as connection:
        rows = connection.execute(query).all()
    return [
        RecentSubmission(
            id=row.id,
            learner=short_learner(row.learner),
            track=row.track,
            status=row.status,
            passed=row.passed,
            total=row.total,
            created_at=as_utc(row.created_at).isoformat(),
            code=clip(row.code, CODE_PREVIEW_CHARS),
            code_clipped=len(row.code) > CODE_PREVIEW_CHARS,
            regrade_of=row.regrade_of,
        )
        for row in rows
    ]


def overview_report(
    store: Store, current: Mapping[str, str] | None = None
) -> dict[str, ExerciseOverview]:
    """Per exercise: N of M learners in any track, and per track its Submits, passes, N of
    M learners and (given each exercise's ``current`` version) how many Submits are graded
    against another version only. Each Submit counts once, by its newest grading, whichever
    version graded it: what the exercise's page shows for "every version"."""
    current = current or {}
    # A Submit whose newest grading is against another version than its exercise's current.
    elsewhere: Any = 0
    if current:
        elsewhere = case(
            *(
                (and_(S.exercise == slug, S.exercise_version != version), 1)
                for slug, version in current.items()
            ),
            else_=0,
        )
    with database_errors(), store.engine.connect() as connection:
        submits = (S.mode == SUBMIT, *_newest(S))
        per_track = (
            select(
                S.exercise,
                S.track,
                func.count(),
                func.sum(case((S.status == "pass", 1), else_=0)),
                *_distinct_learners(),
                func.sum(elsewhere),
            )
            .where(*submits)
            .group_by(S.exercise, S.track)
        )
        found: dict[str, ExerciseOverview] = {}
        for exercise, track, number, passed, learners, solved, older in connection.execute(
            per_track
        ):
            found.setdefault(exercise, ExerciseOverview()).tracks[track] = TrackOverview(
                submissions=int(number),
                passed=int(passed or 0),
                learners=int(learners),
                solved=int(solved),
                elsewhere=int(older or 0),
            )
        # A learner of two tracks is one learner of the exercise: only an exercise with
        # Submits in more than one track needs a count of its own.
        several = sorted(slug for slug, numbers in found.items() if len(numbers.tracks) > 1)
        per_exercise = (
            select(S.exercise, *_distinct_learners())
            .where(*submits, S.exercise.in_(several))
            .group_by(S.exercise)
        )
        for numbers in found.values():
            if len(numbers.tracks) == 1:
                (only,) = numbers.tracks.values()
                numbers.learners, numbers.solved = only.learners, only.solved
        if several:
            for exercise, learners, solved in connection.execute(per_exercise):
                found[exercise].learners, found[exercise].solved = int(learners), int(solved)
    return found


def overview(store: Store) -> dict[tuple[str, str], TrackCounts]:
    """Per (exercise, track): Submits (each once, by its newest grading), how many passed,
    and distinct learners."""
    return {
        (exercise, track): TrackCounts(
            submissions=row.submissions, passed=row.passed, learners=row.learners
        )
        for exercise, numbers in overview_report(store).items()
        for track, row in numbers.tracks.items()
    }
