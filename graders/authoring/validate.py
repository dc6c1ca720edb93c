"""``drill validate``: prove that an exercise's tests work.

For every track: the reference gives the same observations in two separate runs and
passes every test through the learner path; the starter fails; every known-wrong
solution fails at least one hidden test (and the report says which tests caught it);
every known-correct alternative passes every test, examples and hidden; every test has
a name of its own and says something when it fails; each track's view of the statement
(the shared text and its own ``::: track`` blocks) names every entry point of the track;
no placeholder of ``drill new`` is left. A seed track whose hidden tests are not six
gets a warning, and so does a hidden test that shows its expected values in full (a
table of values read off its failures would pass it). Each problem is one line that
starts with the file at fault.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graders.authoring.scaffold import MARKER, placeholders
from graders.errors import DrillError
from graders.grading.catalog import Exercise, KnownSolution
from graders.grading.grader import Grader
from graders.grading.references import TestOptions
from graders.grading.results import GradeResult, Mode, Status
from graders.grading.statement import track_view

# The tracks of the seed exercises (DESIGN.md) ship with this many hidden tests each.
SEED_TRACKS = {
    ("gradient-checkpointing", "numpy"),
    ("gradient-checkpointing", "torch"),
    ("checkpointing-layer-stack", "torch"),
}
SEED_HIDDEN_TESTS = 6


@dataclass
class TrackReport:
    exercise: str
    track: str
    problems: list[str] = field(default_factory=list)  # each fails validation
    warnings: list[str] = field(default_factory=list)
    caught: dict[str, list[str]] = field(default_factory=dict)  # wrong file -> tests
    # wrong file -> (the test that reports it first, the first line of its message)
    first: dict[str, tuple[str, str]] = field(default_factory=dict)
    alternatives: list[str] = field(default_factory=list)  # the files proven to pass
    examples: int = 0
    hidden: int = 0
    test_ms: float = 0.0  # the tests' time of the reference's Submit, in a warm worker

    hidden_names: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def catches(self) -> dict[str, list[str]]:
        """Hidden test -> the known-wrong solutions it catches (the other view of caught)."""
        return {
            test: [wrong for wrong, tests in self.caught.items() if test in tests]
            for test in self.hidden_names
        }

    def as_dict(self) -> dict[str, object]:
        return {
            "exercise": self.exercise,
            "track": self.track,
            "ok": self.ok,
            "examples": self.examples,
            "hidden": self.hidden,
            "test_ms": round(self.test_ms, 2),
            "problems": self.problems,
            "warnings": self.warnings,
            "caught": self.caught,
            "first": {name: {"test": t, "message": m} for name, (t, m) in self.first.items()},
            "alternatives": self.alternatives,
            "catches": self.catches,
        }


def _failing(result: GradeResult) -> list[str]:
    """The tests that caught the code: a test that never ran caught nothing."""
    return [t.name for t in result.tests if t.status not in (Status.PASS, Status.NOT_RUN)]


def _one_line(message: str | None) -> str:
    """A failure message (the call on its own line, then each difference) on one line,
    without the lines of code that set up the case (the learner's to paste)."""
    lines = (message or "").split("\n")
    return " ".join(line for line in lines if not line.startswith("    "))


def silent_failures(result: GradeResult, where: str, source: str) -> list[str]:
    """A problem for each test that failed ``source`` without saying why."""
    return [
        f"{where}/tests.py: test {t.name!r} failed {source} with an empty message"
        for t in result.tests
        if t.status != Status.PASS and not (t.message or "").strip()
    ]


def name_problems(names: list[str], where: str) -> list[str]:
    problems = [f"{where}/tests.py: a test has a blank name" for n in names if not n.strip()]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            problems.append(f"{where}/tests.py: two tests are named {name!r}; names must be unique")
        seen.add(name)
    return problems


def statement_problems(exercise: Exercise, track: str) -> list[str]:
    """A problem for each entry point of ``track`` that its learners' view of the
    statement (the shared text and the track's own blocks) does not name."""
    view = track_view(exercise.statement, track)
    return [
        f"{exercise.slug}/statement.md: entry point {entry} is not named in the {track} "
        f"track's view (the shared text and its '::: track {track}' blocks)"
        for entry in exercise.track(track).entry_points
        if not re.search(rf"(?<!\w){re.escape(entry)}(?!\w)", view)  # a word, not part of one
    ]


def hidden_count_warning(exercise: Exercise, track: str, hidden: int, where: str) -> str | None:
    """A note when a track that came with the project no longer has its six hidden
    tests: adding a test to a course's copy is fine, and this only says so."""
    if (exercise.slug, track) not in SEED_TRACKS or hidden == SEED_HIDDEN_TESTS:
        return None
    return (
        f"{where}/tests.py: {hidden} hidden tests; this track shipped with "
        f"{SEED_HIDDEN_TESTS}. That is fine if you added or removed tests on purpose "
        "(this does not fail validation)"
    )


def tolerance_problems(exercise: Exercise, tests: list[TestOptions], where: str) -> list[str]:
    """A problem for each test that compares values of a dtype more loosely than the
    tolerance ``exercise.toml`` states for it ([tolerance]): the statement promises the
    learner that precision, and a test looser than it accepts what the statement refuses."""
    problems = []
    for t in tests:
        for dtype, stated in exercise.meta.tolerance.items():
            rtol, atol = t.tolerance_of(dtype)
            if rtol > stated.rtol or atol > stated.atol:
                problems.append(
                    f"{where}/tests.py: test {t.name!r} compares {dtype} values with rtol "
                    f"{rtol:g}, atol {atol:g}, looser than the statement's rtol {stated.rtol:g}, "
                    f"atol {stated.atol:g} (exercise.toml [tolerance]); give it "
                    f'tolerances={{"{dtype}": ({stated.rtol:g}, {stated.atol:g})}}'
                )
    return problems


def full_reveal_warnings(tests: list[TestOptions], where: str) -> list[str]:
    """A warning for each hidden test that shows its expected values in full.

    Every hidden test runs on inputs that are the same on each Submit of a learner
    (everyone's draws, or with ``per_learner`` the learner's own), so the values its
    failures show are the answers to fixed questions: read off over a few Submits and
    replayed by call order, they pass the test without solving anything (issue 25).
    Examples may show them: they are the learner's to read."""
    return [
        f"{where}/tests.py: hidden test {t.name!r} shows its expected values in full on "
        "inputs that are the same on every Submit: a table of values read off its failures "
        'would pass it; give it reveal="summary" (a warning: this does not fail validation)'
        for t in tests
        if not t.example and t.reveal == "full"
    ]


def validate_track(grader: Grader, exercise: Exercise, track: str) -> TrackReport:
    report = TrackReport(exercise.slug, track)
    tr = exercise.track(track)
    where = str(tr.folder.relative_to(exercise.folder.parent))
    first_track = track == next(iter(exercise.tracks))
    for path in placeholders(exercise.folder):
        owner = path.split("/")[1]  # a track's folder, or a file shared by all tracks
        if owner == track or (owner not in exercise.tracks and first_track):
            report.problems.append(f"{path}: still holds a {MARKER} placeholder")
    report.problems += statement_problems(exercise, track)
    try:
        store = grader.local.references
        assert store is not None
        reference = store.compute(exercise, track)  # fresh: proves determinism now
    except DrillError as exc:
        report.problems.append(str(exc))
        return report
    report.problems += name_problems([t.name for t in reference.tests], where)
    report.examples = len(reference.names(example=True))
    report.hidden = len(reference.names(example=False))
    report.hidden_names = list(reference.names(example=False))
    if report.hidden == 0:
        report.problems.append(f"{where}/tests.py: no hidden tests")
    count_warning = hidden_count_warning(exercise, track, report.hidden, where)
    if count_warning:
        report.warnings.append(count_warning)
    report.warnings += full_reveal_warnings(reference.tests, where)
    report.problems += tolerance_problems(exercise, reference.tests, where)
    for t in reference.tests:
        if t.hint is not None and t.hint > len(exercise.hints):
            report.problems.append(
                f"{where}/tests.py: test {t.name!r} points at hint {t.hint}, "
                f"but there are {len(exercise.hints)} hints"
            )

    modes: tuple[Mode, ...] = ("run", "submit")
    for mode in modes:
        result = grader.grade(exercise, track, tr.solution, mode)
        if mode == "submit":
            report.test_ms = _warm_test_time(grader, exercise, track, result)
            budget = exercise.meta.tracks[track].test_budget_ms or TEST_BUDGET_MS.get(track)
            if budget is not None and report.test_ms > budget:
                report.warnings.append(
                    f"{where}/tests.py: the tests take {report.test_ms:.1f} ms in a warm "
                    f"worker (the reference's Submit), over the budget of {budget:g} ms: every "
                    "Submit waits for them; reuse built inputs across cases, or set "
                    f"test_budget_ms under [tracks.{track}] (a warning)"
                )
        if result.status != Status.PASS:
            failures = "; ".join(
                f"{t.name}: {_one_line(t.message)}" for t in result.tests if t.status != Status.PASS
            )
            report.problems.append(
                f"{where}/solution.py: the reference does not pass in {mode} mode: "
                f"{failures or result.message}"
            )

    starter = grader.grade(exercise, track, tr.starter, "submit")
    if starter.status == Status.PASS:
        report.problems.append(f"{where}/starter.py: the starter passes every hidden test")
    report.problems += silent_failures(starter, where, "starter.py")

    caught_any: set[str] = set()
    for wrong in tr.wrong:
        result = grader.grade(exercise, track, wrong.code, "submit")
        failing = _failing(result) if result.tests else ["(did not load)"]
        name = wrong.path.name
        report.problems += silent_failures(result, where, f"wrong/{name}")
        report.caught[name] = failing
        caught_any.update(failing)
        if result.status == Status.PASS:
            report.problems.append(
                f"{where}/wrong/{name}: passes every hidden test, but its bug is: {wrong.about}"
            )
        else:
            report.problems += _first_report(result, wrong, reference.tests, where, report)
    report.problems += _alternatives(grader, exercise, track, where, report)
    if any(t.per_learner for t in reference.tests):
        report.problems += _per_learner_draws(grader, exercise, track, where)
    if len(tr.wrong) == 0:
        report.warnings.append(f"{where}/wrong/: no known-wrong solutions")
    for test_name in reference.names(example=False):
        if tr.wrong and test_name not in caught_any:
            report.warnings.append(
                f"{where}/tests.py: hidden test {test_name!r} catches none of the "
                "known-wrong solutions"
            )
    return report


def _first_report(
    result: GradeResult,
    wrong: KnownSolution,
    tests: list[TestOptions],
    where: str,
    report: TrackReport,
) -> list[str]:
    """Note which test reports ``wrong`` first and with what; a problem unless it is the
    test its ``Breaks:`` line names (the rule its bug breaks). A learner reads the first
    failure first: under another rule's name it sends them looking for the wrong bug."""
    name = wrong.path.name
    first = next((t for t in result.tests if t.status not in (Status.PASS, Status.NOT_RUN)), None)
    shown = _one_line(first.message if first else result.message)
    report.first[name] = (first.name if first else "(no test)", shown[:300])
    hidden = {t.id: t.name for t in tests if not t.example}
    by_name = {n: i for i, n in hidden.items()}
    if wrong.breaks is None:
        return [
            f"{where}/wrong/{name}: does not say which rule it breaks: add a line "
            "'Breaks: <test id>' to its docstring, naming the hidden test that must report "
            f"it first (ids: {', '.join(hidden)})"
        ]
    declared = wrong.breaks if wrong.breaks in hidden else by_name.get(wrong.breaks)
    if declared is None:
        return [
            f"{where}/wrong/{name}: 'Breaks: {wrong.breaks}' names no hidden test "
            f"(ids: {', '.join(hidden)})"
        ]
    if first is None or first.id != declared:
        got = f"{first.name!r} reports it first" if first else "no test reports it"
        return [f"{where}/wrong/{name}: breaks {hidden[declared]!r}, but {got}: {shown[:300]}"]
    return []


# The warm test time of a track's Submit above which validate warns, unless the track sets
# its own (exercise.toml test_budget_ms): Submit's speed is mostly the tests' time.
TEST_BUDGET_MS = {"numpy": 10.0, "torch": 25.0}


def _warm_test_time(grader: Grader, exercise: Exercise, track: str, first: GradeResult) -> float:
    """The tests' time of the reference's Submit, in ms: the least of three runs (the
    first one given), since a busy machine only ever adds time."""
    totals = [sum(t.duration_ms for t in first.tests)]
    for _ in range(2):
        again = grader.grade(exercise, track, exercise.track(track).solution, "submit")
        totals.append(sum(t.duration_ms for t in again.tests))
    return min(totals)


# Learners whose draws validate tries for the per_learner tests, beyond everyone's draws.
SAMPLE_LEARNERS = ("validate: learner 1", "validate: learner 2", "validate: learner 3")


def _per_learner_draws(grader: Grader, exercise: Exercise, track: str, where: str) -> list[str]:
    """A problem for each learner's draws on which the reference (run twice: it must
    agree with itself) or a known-correct alternative fails a ``per_learner`` test: a
    draw that breaks them would only show when that learner submitted."""
    tr = exercise.track(track)
    solutions = [("solution.py", tr.solution)]
    solutions += [(f"alternatives/{a.path.name}", a.code) for a in tr.alternatives]
    problems = []
    for learner in SAMPLE_LEARNERS:
        for name, code in solutions:
            try:
                result = grader.grade(exercise, track, code, "submit", learner=learner)
            except DrillError as exc:  # the reference itself fails on these draws
                problems.append(f"{where}: the draws of {learner!r}: {exc}")
                break
            failures = [
                f"{t.name}: {_one_line(t.message)}" for t in result.tests if t.status != Status.PASS
            ]
            if failures or result.status != Status.PASS:
                problems.append(
                    f"{where}/{name}: fails the per-learner draws of {learner!r}: "
                    f"{'; '.join(failures) or result.message}"
                )
    return problems


def _alternatives(
    grader: Grader, exercise: Exercise, track: str, where: str, report: TrackReport
) -> list[str]:
    """A problem for each test a known-correct alternative fails: the grader would
    refuse a learner who solved it that way."""
    problems = []
    for alternative in exercise.track(track).alternatives:
        name = alternative.path.name
        failures = []
        for mode in ("run", "submit"):
            result = grader.grade(exercise, track, alternative.code, mode)
            failures += [
                f"{t.name}: {_one_line(t.message)}" for t in result.tests if t.status != Status.PASS
            ]
            if not result.tests and result.status != Status.PASS:
                failures.append(result.message or result.status.value)
        if failures:
            problems.append(
                f"{where}/alternatives/{name}: a correct solution ({alternative.about}) "
                f"is refused: {'; '.join(failures)}"
            )
        else:
            report.alternatives.append(name)
    return problems


def validate(
    grader: Grader, slugs: list[str] | None = None, tracks: list[str] | None = None
) -> list[TrackReport]:
    """Validate the tracks of the exercises ``slugs`` (default: all); only those named in
    ``tracks``, if given."""
    exercises = [grader.catalog.get(s) for s in slugs] if slugs else list(grader.catalog)
    return [
        validate_track(grader, ex, track)
        for ex in exercises
        for track in ex.tracks
        if tracks is None or track in tracks
    ]
