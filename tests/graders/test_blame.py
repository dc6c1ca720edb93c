"""Who a failure is due to, as data: learner, test, grader or infrastructure. Built by the
server from how the run ended, never read off a message a learner's code can write; read
off messages only for results stored before results said it. No sandbox: frames are
built here as the harness writes them (see test_results.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graders.errors import MachineLost
from graders.grading import backend, verdicts
from graders.grading.jobs import JobOutcome
from graders.grading.results import Blame, GradeResult, Status, TestResult, legacy_blame
from graders.sandbox import wire
from graders.sandbox.encode import Encoder
from tests.graders.test_results import CTX, LIMITS, LOADED, passing, raising


def grade(*frames: wire.Frame, **outcome: Any) -> GradeResult:
    return verdicts.build(CTX, JobOutcome(frames=[LOADED, *frames], **outcome))


def blames(result: GradeResult) -> list[Blame | None]:
    return [t.blame for t in result.tests]


def test_a_wrong_value_and_an_exception_in_the_learners_code_are_the_learners() -> None:
    encoder = Encoder(2**20)
    node = encoder.value({"result": np.arange(4.0)})  # the reference has arange(3.0)
    header = {"type": "test", "id": "b", "status": "ok", "obs": node, "duration_ms": 1.0}
    wrong = wire.Frame(header, encoder.body)
    result = grade(passing("a"), wrong, raising("c", "ValueError", "bad"), exit_code=0)
    assert [t.status for t in result.tests] == [Status.PASS, Status.FAIL, Status.ERROR]
    assert blames(result) == [None, Blame.LEARNER, Blame.LEARNER]
    assert result.blame is None  # each test says its own


def test_a_test_that_fails_before_calling_the_learners_code_is_the_tests() -> None:
    error = {"type": "KeyError", "message": "'layers'", "line": 3, "in_learner_code": False}
    frame = wire.Frame(
        {"type": "test", "id": "a", "status": "raised", "error": error, "duration_ms": 1}
    )
    result = grade(frame, passing("b"), passing("c"), exit_code=0)
    assert result.tests[0].message.startswith("the test failed before calling your code")
    assert blames(result) == [Blame.TEST, None, None]


def test_the_learners_own_words_never_move_the_blame() -> None:
    """A learner's exception whose text is the grader's own wording stays the learner's:
    the blame comes from where the error was raised, not from what it says."""
    for text in ("internal grading error", "the test failed before calling your code"):
        result = grade(raising("a", "RuntimeError", text), passing("b"), passing("c"))
        assert text in result.tests[0].message
        assert result.tests[0].blame is Blame.LEARNER
        stored = result.model_dump(mode="json")  # read back as the store gives it
        assert GradeResult.model_validate(stored).tests[0].blame is Blame.LEARNER


def test_a_limit_the_learners_code_hits_is_the_learners() -> None:
    for outcome in (
        {"killed_for": "wall", "exit_code": -9},
        {"killed_for": "memory", "exit_code": -9},
        {"exit_code": -11},
        {"exit_code": 3},
    ):
        result = grade(passing("a"), **outcome)
        assert blames(result) == [None, Blame.LEARNER, None], outcome


def test_a_lost_sandbox_is_the_infrastructures_and_the_harness_exit_the_graders() -> None:
    lost = grade(passing("a"), worker_lost=True)
    assert lost.tests[1].message.startswith("the sandbox stopped unexpectedly")
    assert blames(lost) == [None, Blame.INFRASTRUCTURE, None]
    harness = grade(passing("a"), exit_code=70)
    assert blames(harness) == [None, Blame.GRADER, None]


def test_a_harness_error_before_any_verdict_is_the_graders_whole_run() -> None:
    result = grade(wire.Frame({"type": "harness_error", "message": "KeyError: 'x'"}))
    assert (result.status, result.tests, result.blame) == (Status.ERROR, [], Blame.GRADER)
    # Out of memory inside the harness: the learner's code took the memory.
    memory = grade(wire.Frame({"type": "harness_error", "message": "MemoryError"}))
    assert [t.blame for t in memory.tests] == [Blame.LEARNER, None, None]


def test_whole_run_errors_of_the_learners_code() -> None:
    assert verdicts.syntax_error(CTX, SyntaxError("x")).blame is Blame.LEARNER
    assert grade(exit_code=-9, killed_for="wall").blame is None  # tests carry it
    loading = verdicts.build(CTX, JobOutcome(frames=[], killed_for="wall", exit_code=-9))
    assert (loading.tests, loading.blame) == ([], Blame.LEARNER)


def test_a_machine_lost_mid_job_is_the_infrastructures(monkeypatch: pytest.MonkeyPatch) -> None:
    from graders.grading.catalog import load_catalog
    from tests.conftest import TEST_EXERCISES

    exercise = load_catalog(TEST_EXERCISES).get("double")

    def lost(job: Any, limits: Any) -> JobOutcome:
        raise MachineLost("the grading machine was lost while running your code")

    monkeypatch.setattr(backend, "job_for", lambda *args, **kwargs: None)
    code = "def double(x):\n    return x * 2\n"
    result = backend.grade_with(lost, CTX.reference, exercise, "numpy", code, "submit", LIMITS)
    assert (result.status, result.tests, result.blame) == (
        Status.ERROR,
        [],
        Blame.INFRASTRUCTURE,
    )


def test_a_pass_or_a_test_not_run_is_nobodys() -> None:
    result = grade(passing("a"), exit_code=-11)
    assert [t.status for t in result.tests] == [Status.PASS, Status.ERROR, Status.NOT_RUN]
    assert blames(result) == [None, Blame.LEARNER, None]
    forced = TestResult(name="x", status=Status.PASS, blame=Blame.GRADER)
    assert forced.blame is None


@pytest.mark.parametrize(
    ("message", "blame"),
    [
        ("the test failed before calling your code: KeyError: 'x'", Blame.TEST),
        ("internal grading error: the sandbox harness failed", Blame.GRADER),
        (
            "the grading machine was lost while running your code (2 of 2 tries)",
            Blame.INFRASTRUCTURE,
        ),
        ("the sandbox stopped unexpectedly while running your code", Blame.INFRASTRUCTURE),
        ("your code raised ValueError: internal grading error (line 2)", Blame.LEARNER),
        ("expected shape (3,), got (4,)", Blame.LEARNER),
    ],
)
def test_results_stored_before_blame_read_it_off_the_graders_own_words(
    message: str, blame: Blame
) -> None:
    stored: dict[str, Any] = {"name": "t", "status": "error", "message": message}
    assert TestResult.model_validate(stored).blame is blame
    assert legacy_blame("error", message) is blame
    run = {"exercise": "x", "track": "numpy", "mode": "submit", "status": "error"}
    assert GradeResult.model_validate({**run, "message": message}).blame is blame
    assert legacy_blame("pass", message) is None
