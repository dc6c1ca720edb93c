"""Results as data: tests that never ran, and what a result says of a test's output (how
much there was, whether it was cut), from the sandbox's frame to the CLI's text. No
sandbox: frames are built here as the harness writes them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from drill.cli import format_result, format_size
from graders.grading import verdicts
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome
from graders.grading.references import Reference, TestOptions
from graders.grading.results import (
    LEGACY_NOT_RUN,
    MAX_OUTPUT_BYTES,
    NOT_RUN_MESSAGE,
    OUTPUT_LIMIT,
    SUBMISSION_OUTPUT_BYTES,
    TRUNCATION_MARKER,
    GradeResult,
    Status,
    TestResult,
    stored_size,
)
from graders.sandbox import runner, wire
from graders.sandbox.encode import Encoder

LIMITS = JobLimits(2, 3, 512 * 2**20, 65536, 2**20, 64)
NAMES = ["a", "b", "c"]


def reference() -> Reference:
    tests = [
        TestOptions(
            id=n, name=n, example=False, rtol=1e-5, atol=1e-8, exact_dtype=False, reveal="full"
        )
        for n in NAMES
    ]
    encoded = {}
    for name in NAMES:
        encoder = Encoder(2**20)
        encoded[name] = (encoder.value({"result": np.arange(3.0)}), encoder.body)
    return Reference("results", tests, encoded)


CTX = verdicts.Context("ex", "numpy", "submit", NAMES, reference(), LIMITS)
LOADED = wire.Frame({"type": "code_loaded"})


def passing(name: str, **extra: Any) -> wire.Frame:
    """A test frame whose observations match the reference's."""
    encoder = Encoder(2**20)
    node = encoder.value({"result": np.arange(3.0)})
    header = {"type": "test", "id": name, "status": "ok", "obs": node, "duration_ms": 1.0}
    return wire.Frame({**header, **extra}, encoder.body)


def grade(*frames: wire.Frame, **outcome: Any) -> GradeResult:
    return verdicts.build(CTX, JobOutcome(frames=[LOADED, *frames], **outcome))


# --- not_run ---


def test_tests_after_the_one_that_stopped_the_run_are_not_run() -> None:
    result = grade(passing("a"), killed_for="wall", exit_code=-9)
    assert [(t.name, t.status) for t in result.tests] == [
        ("a", Status.PASS),
        ("b", Status.ERROR),
        ("c", Status.NOT_RUN),
    ]
    # The test that was running; no report from the sandbox: the limit and the test only.
    assert result.tests[1].message == "wall-clock time limit of 3 s exceeded in test 'b'"
    assert result.tests[2].message == "the run ended during test 'b', before this test started"
    assert (result.status, result.passed, result.total) == (Status.FAIL, 1, 3)
    assert result.message == "1/3 tests passed"


def test_a_crash_at_the_first_test_leaves_the_others_not_run() -> None:
    result = grade(exit_code=-11)
    assert [t.status for t in result.tests] == [Status.ERROR, Status.NOT_RUN, Status.NOT_RUN]
    assert result.tests[0].message == "crashed with SIGSEGV"
    ended = "the run ended during test 'a', before this test started"
    assert [t.message for t in result.tests[1:]] == [ended, ended]


def test_a_kill_at_the_job_cgroups_memory_limit_is_the_plain_memory_verdict() -> None:
    """The kernel's kill at the memory limit reads as the verdict a MemoryError gives, not
    as a crash (its maximum resident size may be far below the limit: memfds, pipes)."""
    result = grade(passing("a"), killed_for="memory", exit_code=-9, maxrss_kb=1024)
    assert result.tests[1].message == "memory limit of 512 MiB exceeded"
    assert grade(passing("a"), exit_code=-9, maxrss_kb=1024).tests[1].message == (
        "crashed with SIGKILL"
    )


def raising(name: str, kind: str, message: str) -> wire.Frame:
    error = {"type": kind, "message": message, "line": 7, "in_learner_code": True}
    header = {"type": "test", "id": name, "status": "raised", "error": error, "duration_ms": 1}
    return wire.Frame(header)


def test_a_thread_refused_at_pids_max_names_the_thread_limit() -> None:
    frame = raising("a", "RuntimeError", "can't start new thread")
    limited = grade(frame, passing("b"), passing("c"), exit_code=0, pids_limited=True)
    assert limited.tests[0].message == (
        "your code started more threads than the limit of 64 allows "
        "(RuntimeError: can't start new thread) (line 7)"
    )
    # Refused for another reason (the address space its stacks reserve): as it was.
    other = grade(frame, passing("b"), passing("c"), exit_code=0)
    assert (
        other.tests[0].message == "your code raised RuntimeError: can't start new thread (line 7)"
    )


def test_a_whole_result_is_never_not_run() -> None:
    with pytest.raises(ValidationError, match="only a test is not_run"):
        GradeResult(exercise="ex", track="numpy", mode="run", status=Status.NOT_RUN, message="")


def test_a_stored_legacy_not_run_error_reads_as_not_run() -> None:
    test = TestResult.model_validate({"name": "b", "status": "error", "message": LEGACY_NOT_RUN})
    assert (test.status, test.message) == (Status.NOT_RUN, NOT_RUN_MESSAGE)
    # Any other error stays one.
    other = TestResult.model_validate({"name": "b", "status": "error", "message": "boom"})
    assert (other.status, other.message) == (Status.ERROR, "boom")


def test_a_stored_legacy_output_says_whether_it_was_cut() -> None:
    cut = TestResult.model_validate(
        {"name": "a", "status": "pass", "output": "x" + TRUNCATION_MARKER}
    )
    assert (cut.output_truncated, cut.output_bytes, cut.output_bytes_at_least) == (
        True,
        None,
        False,
    )
    whole = TestResult.model_validate({"name": "a", "status": "pass", "output": "x"})
    assert whole.output_truncated is False


# --- output: what was kept of how much ---


def test_the_harness_count_of_bytes_is_reported() -> None:
    result = grade(passing("a", output="héllo\n", output_truncated=False, output_bytes=7))
    test = result.tests[0]
    assert (test.output, test.output_truncated, test.output_bytes) == ("héllo\n", False, 7)
    assert test.output_bytes_at_least is False


def test_output_the_harness_cut_is_marked_with_its_total() -> None:
    frame = passing(
        "a",
        output="x" * 100,
        output_truncated=True,
        output_bytes=12_300_000,
        output_bytes_at_least=True,
    )
    test = grade(frame).tests[0]
    assert test.output == "x" * 100 + TRUNCATION_MARKER
    assert (test.output_truncated, test.output_bytes, test.output_bytes_at_least) == (
        True,
        12_300_000,
        True,
    )


def test_output_longer_than_a_result_keeps_is_cut_and_marked() -> None:
    # The sandbox keeps up to DRILL_OUTPUT_BYTES characters (64 KiB); a result keeps less.
    frame = passing("a", output="y" * 60_000, output_truncated=False, output_bytes=60_000)
    test = grade(frame).tests[0]
    assert test.output_truncated and test.output_bytes == 60_000
    assert test.output.endswith(TRUNCATION_MARKER) and len(test.output) <= OUTPUT_LIMIT
    assert test.output.startswith("y" * 10_000)


def test_a_raising_tests_traceback_survives_a_long_output() -> None:
    traceback = 'Traceback (most recent call last):\n  File "solution.py", line 2\nValueError: no\n'
    frame = wire.Frame(
        {
            "type": "test",
            "id": "a",
            "status": "raised",
            "duration_ms": 1.0,
            "error": {"type": "ValueError", "message": "no", "traceback": traceback},
            "output": "z" * 60_000,
            "output_truncated": False,
            "output_bytes": 60_000,
        }
    )
    test = grade(frame).tests[0]
    assert test.status == Status.ERROR and test.output_truncated
    assert test.output.endswith(traceback) and TRUNCATION_MARKER in test.output
    assert len(test.output) <= OUTPUT_LIMIT


@pytest.mark.parametrize(
    "count",
    [-1, 1.5, True, None, "7", 2, MAX_OUTPUT_BYTES + 1, float("inf")],
    ids=["negative", "float", "bool", "null", "text", "fewer-than-sent", "huge", "infinite"],
)
def test_a_byte_count_that_cannot_be_true_is_dropped(count: Any) -> None:
    # "abcdef" is six characters, so at least six bytes were written.
    frame = passing("a", output="abcdef", output_bytes=count, output_bytes_at_least=True)
    test = grade(frame).tests[0]
    assert (test.output_bytes, test.output_bytes_at_least) == (None, False)
    assert test.status == Status.PASS  # the verdict does not depend on it


def test_the_largest_exact_count_is_kept() -> None:
    test = grade(passing("a", output="", output_bytes=MAX_OUTPUT_BYTES)).tests[0]
    assert test.output_bytes == MAX_OUTPUT_BYTES


def test_the_model_itself_bounds_the_fields() -> None:
    with pytest.raises(ValidationError):
        TestResult(name="a", status=Status.PASS, output_bytes=-1)
    long = TestResult(name="a", status=Status.PASS, output="q" * (OUTPUT_LIMIT + 5))
    assert long.output_truncated and long.output.endswith(TRUNCATION_MARKER)
    unknown = TestResult(name="a", status=Status.PASS, output_bytes_at_least=True)
    assert unknown.output_bytes_at_least is False  # "at least" of no count means nothing


# --- the harness's counting (in this process: no capture of real descriptors) ---


def test_bounded_text_counts_every_byte_written_kept_or_not() -> None:
    text = runner.BoundedText(4)
    text.write("ab")
    text.write("cdé€")  # é and € are 2 and 3 bytes in UTF-8
    text.write("x" * 1000)
    kept, dropped, written = text.take()
    assert (kept, dropped, written) == ("abcd", 2 + 1000, 2 + 2 + 2 + 3 + 1000)
    assert text.take() == ("", 0, 0)  # a new test starts from nothing


@pytest.mark.parametrize(
    ("text", "size"),
    [("", 0), ("ascii", 5), ("é", 2), ("€" * 200_000, 600_000), ("\ud800", 3)],
    ids=["empty", "ascii", "two-byte", "long-non-ascii", "lone-surrogate"],
)
def test_utf8_size(text: str, size: int) -> None:
    assert runner.utf8_size(text) == size


def test_the_first_test_keeps_what_the_load_left_of_the_capture_limit() -> None:
    """The load's output goes apart; the first test's is cut to the rest of the limit, so
    the two together keep no more than one capture did when the load's came first."""
    test = runner.Captured("x" * 10, False, 100, True)
    cut = test.within(8 - len("load\n"))
    assert cut == runner.Captured("xxx", True, 100, True)  # every byte still counted
    assert cut.header() == {
        "output": "xxx",
        "output_truncated": True,
        "output_bytes": 100,
        "output_bytes_at_least": True,
    }
    assert test.within(10) is test and test.within(0).text == ""
    assert test.within(-5) == runner.Captured("", True, 100, True)


# --- what the module printed while loading, apart from the tests ---


def code_loaded(**fields: Any) -> wire.Frame:
    return wire.Frame({"type": "code_loaded", **fields})


def test_what_the_module_printed_while_loading_is_apart_from_the_first_test() -> None:
    loaded = code_loaded(
        output="loading\n", output_truncated=False, output_bytes=8, output_bytes_at_least=False
    )
    first = passing("a", output="in a\n", output_bytes=5)
    result = verdicts.build(CTX, JobOutcome(frames=[loaded, first, passing("b"), passing("c")]))
    assert (result.load_output, result.load_output_truncated) == ("loading\n", False)
    assert (result.load_output_bytes, result.load_output_bytes_at_least) == (8, False)
    assert result.tests[0].output == "in a\n" and result.tests[0].output_bytes == 5
    assert result.status == Status.PASS


def test_a_silent_load_and_an_old_harness_give_no_load_output() -> None:
    silent = grade(passing("a"), passing("b"), passing("c"))  # LOADED: no output fields
    assert (silent.load_output, silent.load_output_truncated) == ("", False)
    assert (silent.load_output_bytes, silent.load_output_bytes_at_least) == (None, False)


def test_a_long_load_output_is_cut_and_marked_as_a_tests_is() -> None:
    loaded = code_loaded(output="y" * 60_000, output_truncated=True, output_bytes=1 << 20)
    result = verdicts.build(CTX, JobOutcome(frames=[loaded, passing("a")], exit_code=0))
    assert result.load_output.endswith(TRUNCATION_MARKER)
    assert len(result.load_output) <= OUTPUT_LIMIT and result.load_output.startswith("y" * 100)
    assert (result.load_output_truncated, result.load_output_bytes) == (True, 1 << 20)
    # A count that cannot be true is dropped, as a test's.
    lying = code_loaded(output="abc", output_bytes=2, output_bytes_at_least=True)
    dropped = verdicts.build(CTX, JobOutcome(frames=[lying, passing("a")]))
    assert (dropped.load_output, dropped.load_output_bytes) == ("abc", None)
    assert dropped.load_output_bytes_at_least is False


def test_a_damaged_load_output_is_no_output() -> None:
    for output in (None, 7, ["x"], {"a": 1}):
        result = verdicts.build(CTX, JobOutcome(frames=[code_loaded(output=output), passing("a")]))
        assert result.load_output == "" and result.tests[0].status == Status.PASS


def test_only_the_first_code_loaded_frame_counts() -> None:
    frames = [code_loaded(output="first"), code_loaded(output="second"), passing("a")]
    assert verdicts.build(CTX, JobOutcome(frames=frames)).load_output == "first"


def test_a_load_error_keeps_what_the_module_printed_before_it() -> None:
    error = {"type": "ValueError", "message": "no", "line": 3, "in_learner_code": True}
    frame = wire.Frame(
        {"type": "load_error", "error": error, "output": "before\n", "output_bytes": 7}
    )
    result = verdicts.build(CTX, JobOutcome(frames=[frame]))
    assert result.status == Status.ERROR and result.tests == []
    assert result.message == "your code raised, while loading, ValueError: no (line 3)"
    assert (result.load_output, result.load_output_bytes) == ("before\n", 7)


def test_the_load_output_comes_first_in_the_submissions_output_budget() -> None:
    """The stored output of a submission stays within its budget with the load's in it:
    escapes are six bytes each stored, so 16 K of them fill the budget on their own."""
    loaded = code_loaded(output="\x1b" * 20_000, output_bytes=20_000)
    first = passing("a", output="printed by a")
    result = verdicts.build(CTX, JobOutcome(frames=[loaded, first]))
    total = stored_size(result.load_output) + sum(stored_size(t.output) for t in result.tests)
    assert total <= SUBMISSION_OUTPUT_BYTES
    assert result.load_output.startswith("\x1b" * 1000) and result.load_output_truncated
    assert result.tests[0].output in ("", TRUNCATION_MARKER) and result.tests[0].output_truncated


def test_a_result_stored_before_the_load_output_reads_with_none() -> None:
    stored = {
        "exercise": "ex",
        "track": "numpy",
        "mode": "submit",
        "status": "pass",
        "message": "1/1 tests passed",
        "passed": 1,
        "total": 1,
        "tests": [{"name": "a", "status": "pass", "output": "loading\nin a\n"}],
    }
    result = GradeResult.model_validate(stored)
    assert (result.load_output, result.load_output_truncated) == ("", False)
    assert (result.load_output_bytes, result.load_output_bytes_at_least) == (None, False)
    assert result.tests[0].output == "loading\nin a\n"  # as it was stored


# --- the command line ---


def test_the_cli_shows_not_run_tests_and_cut_output() -> None:
    frame = passing("a", output="o" * 100, output_truncated=True, output_bytes=12_300_000)
    text = format_result(grade(frame, killed_for="wall", exit_code=-9))
    lines = text.splitlines()
    assert lines[0] == "ex [numpy] submit"
    assert lines[1] == "  PASS  a (1.0 ms)"
    assert lines[2] == "        output truncated: the first 100 B of 12.3 MB kept"
    assert lines[3] == "  ERROR b (0.0 ms)"
    assert lines[4] == "        wall-clock time limit of 3 s exceeded in test 'b'"
    assert lines[5] == "  SKIP  c (not run)"
    assert lines[6].strip() == "the run ended during test 'b', before this test started"
    assert lines[-1].startswith("1/3 tests passed (1 not run) in ")


def test_the_cli_counts_what_was_kept_of_the_output_not_the_traceback() -> None:
    frame = wire.Frame(
        {
            "type": "test",
            "id": "a",
            "status": "raised",
            "duration_ms": 1.0,
            "error": {"type": "OSError", "message": "File too large", "traceback": "T" * 3000},
            "output": "é" * 100,
            "output_truncated": True,
            "output_bytes": 1 << 20,
            "output_bytes_at_least": True,
        }
    )
    assert "the first 200 B of at least 1 MB kept" in format_result(grade(frame))


def test_the_cli_says_at_least_when_counting_stopped() -> None:
    frame = passing(
        "a", output="o", output_truncated=True, output_bytes=1 << 20, output_bytes_at_least=True
    )
    assert "the first 1 B of at least 1 MB kept" in format_result(grade(frame))


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0 B"),
        (1023, "1023 B"),
        (16 * 1024, "16 KiB"),
        (65_536, "64 KiB"),
        (12_300_000, "12.3 MB"),
        (999_999_999, "1 GB"),
        (MAX_OUTPUT_BYTES, "9 PB"),
    ],
)
def test_format_size(size: int, shown: str) -> None:
    assert format_size(size) == shown
