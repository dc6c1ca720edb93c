"""A time limit names where it stopped the run (issue 27, point 4): which limit, with the
figure the exercise sets, the test that was running, the call of learner code in progress
and the learner's line, and how long that test ran.

The sandbox child reports where it is when a time limit's signal reaches it (SIGXCPU at
the soft CPU limit; REPORT_SIGNAL, sent by its worker at the server's request, at the
wall-clock limit). That report is display text: the server decides from its own evidence
whether a time limit stopped the run, checks that the report is about the test it knows
was running, and bounds every field; a learner who ignores, blocks or replaces the
handler loses the details, never the kill on time.
"""

from __future__ import annotations

import os
import resource
import signal
import textwrap
from typing import Any

import numpy as np
import pytest

from graders.grading import verdicts
from graders.grading.grader import Grader
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome, result_budget
from graders.grading.references import Reference, TestOptions
from graders.grading.results import GradeResult, Status
from graders.sandbox import runner, wire
from graders.sandbox.encode import Encoder
from tests.graders.test_jobs import double_job

LIMITS = JobLimits(2, 3, 512 * 2**20, 65536, 2**20, 64)
IDS = ["a", "b", "c"]
NAMES = {"a": "doubles a vector", "b": "doubles a matrix", "c": "doubles integers"}
WALL = "wall-clock time limit of 3 s exceeded"
CPU = "CPU time limit of 2 s exceeded"


def reference() -> Reference:
    tests = [
        TestOptions(
            id=i,
            name=NAMES[i],
            example=False,
            rtol=1e-5,
            atol=1e-8,
            exact_dtype=False,
            reveal="full",
        )
        for i in IDS
    ]
    encoded = {}
    for i in IDS:
        encoder = Encoder(2**20)
        encoded[i] = (encoder.value({"result": np.arange(3.0)}), encoder.body)
    return Reference("time-limits", tests, encoded)


CTX = verdicts.Context(
    "ex", "numpy", "submit", IDS, reference(), LIMITS, {"double": ["x"], "plan": ["sizes"]}
)
LOADED = wire.Frame({"type": "code_loaded"})


def passing(test_id: str) -> wire.Frame:
    encoder = Encoder(2**20)
    node = encoder.value({"result": np.arange(3.0)})
    header = {"type": "test", "id": test_id, "status": "ok", "obs": node, "duration_ms": 2.0}
    return wire.Frame(header, encoder.body)


def stopped(test: Any = "b", **fields: Any) -> wire.Frame:
    """A stopped frame as runner.Job.where_stopped writes it."""
    header: dict[str, Any] = {
        "type": "stopped",
        "test": test,
        "duration_ms": 1234.5,
        "calls": [[0, "double", [["an array of shape (3, 3)", False]], {}, None]],
        "call_of": {},
        "failed_call": 0,
        "line": 12,
        "code": "for plan in itertools.product(range(2), repeat=len(sizes)):",
    }
    header.update(fields)
    return wire.Frame(header)


def grade(*frames: wire.Frame, loaded: bool = True, **outcome: Any) -> GradeResult:
    start = [LOADED] if loaded else []
    return verdicts.build(CTX, JobOutcome(frames=[*start, *frames], **outcome))


WHERE = (
    ", during double(x), at line 12: `for plan in itertools.product(range(2), repeat=len(sizes)):`"
)
# How a run that a time limit stopped ends, as the pool and the worker report it.
BY_WALL: dict[str, Any] = {"killed_for": "wall", "exit_code": -9, "elapsed": 3.4}
BY_CPU: dict[str, Any] = {"exit_code": -int(signal.SIGXCPU), "cpu_seconds": 2.01, "elapsed": 2.6}


# --- the message and the duration, from frames (no sandbox) ----------------------------


@pytest.mark.parametrize(
    ("outcome", "limit"), [(BY_WALL, WALL), (BY_CPU, CPU)], ids=["wall", "cpu"]
)
def test_the_stopped_test_names_the_limit_the_test_the_call_and_the_line(
    outcome: dict[str, Any], limit: str
) -> None:
    result = grade(passing("a"), stopped(), **outcome)
    first, running, after = result.tests
    assert first.status == Status.PASS
    assert running.status == Status.ERROR
    assert running.message == f"{limit} in test 'doubles a matrix'{WHERE}"
    assert running.duration_ms == 1234.5  # as the sandbox measured it, not 0.0
    assert after.status == Status.NOT_RUN
    assert after.message == "the run ended during test 'doubles a matrix', before this test started"


def test_a_call_made_in_a_case_of_a_table_names_the_case() -> None:
    calls = [[3, "plan", [["[2, 2, 1]", True]], {"budget": ["6", True]}, "six layers"]]
    result = grade(stopped(test="a", calls=calls, failed_call=3, line=None), **BY_CPU)
    assert result.tests[0].message == (
        f"{CPU} in test 'doubles a vector', in case 'six layers', during plan([2, 2, 1], budget=6)"
    )


def test_no_call_in_progress_and_no_line_leave_the_limit_and_the_test() -> None:
    result = grade(stopped(test="a", calls=[], failed_call=None, line=None), **BY_WALL)
    assert result.tests[0].message == f"{WALL} in test 'doubles a vector'"
    assert result.tests[0].duration_ms == 1234.5


def test_without_a_report_the_duration_is_what_the_run_took_beyond_the_finished_tests() -> None:
    """A learner who ignored the signal: the plain message, on the test that was running,
    with an upper bound of its duration (the run's time less the finished test's)."""
    result = grade(passing("a"), **BY_WALL)
    assert result.tests[1].message == f"{WALL} in test 'doubles a matrix'"
    assert result.tests[1].duration_ms == 3400.0 - 2.0


def test_a_time_limit_while_loading_names_the_line_of_the_module() -> None:
    frame = stopped(test=None, calls=[], failed_call=None, line=3, code="while True:")
    result = grade(frame, loaded=False, **BY_CPU)
    assert (result.status, result.tests) == (Status.ERROR, [])
    assert result.message == f"{CPU} while loading your code, at line 3: `while True:`"


@pytest.mark.parametrize(
    "frame",
    [
        stopped(test="a"),  # a test that had finished
        stopped(test="c"),  # a test that had not started
        stopped(test=None),  # "loading", though the code had loaded
        stopped(test=["b"]),
        wire.Frame({"type": "stopped", "line": 12, "code": "x"}),  # no test named
    ],
    ids=["finished test", "later test", "loading", "not a string", "no test"],
)
def test_a_report_about_another_test_than_the_running_one_is_ignored(frame: wire.Frame) -> None:
    result = grade(passing("a"), frame, **BY_WALL)
    assert result.tests[1].message == f"{WALL} in test 'doubles a matrix'"
    assert result.tests[1].duration_ms == 3400.0 - 2.0


@pytest.mark.parametrize(
    "outcome",
    [
        {"exit_code": 0, "elapsed": 1.0},  # ended the process itself
        {"exit_code": -11, "elapsed": 1.0},  # a crash
        {"exit_code": -9, "cpu_seconds": 0.3, "elapsed": 1.0},  # SIGKILL, not at the limit
        {"killed_for": "memory", "exit_code": -9, "elapsed": 1.0},
        {"killed_for": "result_size", "exit_code": -9, "elapsed": 1.0},
        {"worker_lost": True, "exit_code": None, "elapsed": 1.0},
    ],
    ids=["exit 0", "SIGSEGV", "early SIGKILL", "memory", "result size", "worker lost"],
)
def test_a_forged_report_changes_nothing_when_no_time_limit_stopped_the_run(
    outcome: dict[str, Any],
) -> None:
    """The report is only read once the server's own evidence says a time limit stopped
    the run: written by learner code into a run that ended otherwise, it is not shown."""
    forged = grade(passing("a"), stopped(), **outcome)
    plain = grade(passing("a"), **outcome)
    assert forged.model_dump() == plain.model_dump()
    assert "line 12" not in forged.tests[1].message
    assert forged.tests[1].duration_ms == 0.0


def test_a_forged_report_cannot_turn_a_finished_run_into_anything_else() -> None:
    result = grade(passing("a"), passing("b"), passing("c"), stopped(), exit_code=0)
    assert (result.status, result.passed) == (Status.PASS, 3)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"line": 10**9}, f"{WALL} in test 'doubles a matrix', during double(x)"),
        ({"line": 12.0}, f"{WALL} in test 'doubles a matrix', during double(x)"),
        ({"line": True}, f"{WALL} in test 'doubles a matrix', during double(x)"),
        (
            {"code": "a\n\n  b" + " c" * 400},
            f"{WALL} in test 'doubles a matrix', during double(x), at line 12: `a b"
            + " c" * 97
            + "`",
        ),
        (
            {"calls": [[0, "not an identifier!", [], {}, None]]},
            f"{WALL} in test 'doubles a matrix', at line 12: "
            "`for plan in itertools.product(range(2), repeat=len(sizes)):`",
        ),
        (
            {"failed_call": 7},
            f"{WALL} in test 'doubles a matrix'{WHERE}".replace(", during double(x)", ""),
        ),
    ],
    ids=["huge line", "float line", "bool line", "long code", "bad call", "unknown call"],
)
def test_every_field_of_a_report_is_checked_and_bounded(
    fields: dict[str, Any], message: str
) -> None:
    result = grade(stopped(test="a"), stopped(test="b", **fields), **BY_WALL)
    # Only the first report is read: the first test was running, and it is about "a".
    assert result.tests[0].message.startswith(f"{WALL} in test 'doubles a vector'")
    result = grade(passing("a"), stopped(test="b", **fields), **BY_WALL)
    assert result.tests[1].message == message


@pytest.mark.parametrize("duration", [float("inf"), -1.0, 10**9, "12", None])
def test_a_duration_out_of_range_is_not_taken(duration: Any) -> None:
    result = grade(passing("a"), stopped(duration_ms=duration), **BY_WALL)
    assert result.tests[1].duration_ms == 3400.0 - 2.0


# --- the harness's report, in a forked copy of this process (no sandbox) ---------------


def run_forked(code: str, before: str = "") -> tuple[list[wire.Frame], int]:
    """Run the double exercise's job on ``code`` in the real harness, in a child forked
    from this process; return its frames and how it ended (a negative signal number)."""
    job = double_job(["matrix", "integers"])  # the hidden tests, by id
    job.header["code"] = code
    sink = os.memfd_create("frames")
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # SIGXCPU dumps core
            harness = runner.Job(job.header, sink, job.body)
            if before == "deferred":
                # A time limit's signal while a frame is being written: that frame is
                # finished first, then the report follows it.
                harness.sending = True
                harness.on_time_limit(runner.REPORT_SIGNAL, None)
                harness.sending = False
                harness.send({"type": "done", "imported": []})
            else:
                harness.run()
        finally:
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    data = os.pread(sink, LIMITS.result_bytes + 1, 0)
    os.close(sink)
    frames, rest = wire.split_frames(data, LIMITS.result_bytes, result_budget(job, LIMITS))
    assert rest == b""
    return frames, os.waitstatus_to_exitcode(status)


SIGNALLING = textwrap.dedent(
    """\
    import signal


    def double(x):
        for _ in range(3):
            signal.raise_signal(signal.{name})
        return x * 2
    """
)


@pytest.mark.parametrize(
    ("name", "ends_by"),
    [("SIGXCPU", signal.SIGXCPU), ("SIGUSR1", signal.SIGKILL)],
    ids=["cpu limit", "wall-clock report"],
)
def test_the_harness_reports_the_test_the_call_and_the_line_then_ends(
    name: str, ends_by: int
) -> None:
    assert runner.REPORT_SIGNAL == signal.SIGUSR1
    frames, code = run_forked(SIGNALLING.format(name=name))
    # The CPU limit's end is SIGXCPU's own, as without a handler: the server reads the
    # limit from the exit status and the CPU time, never from the report.
    assert code == -ends_by
    assert [f.header["type"] for f in frames] == ["loaded", "code_loaded", "stopped"]
    report = frames[-1].header
    assert report["test"] == "matrix"  # the first hidden test, by id
    assert report["line"] == 6 and report["code"] == f"signal.raise_signal(signal.{name})"
    assert report["failed_call"] == 0 and report["calls"][0][1] == "double"
    assert 0 <= report["duration_ms"] < 5000


def test_a_signal_while_a_frame_is_written_reports_after_that_frame() -> None:
    frames, code = run_forked(SIGNALLING.format(name="SIGUSR1"), before="deferred")
    assert code == -signal.SIGKILL
    assert [f.header["type"] for f in frames] == ["done", "stopped"]
    assert frames[1].header["test"] is None and "line" not in frames[1].header


def test_a_learner_handler_takes_the_report_away_but_not_the_end() -> None:
    """Learner code that replaces the handler: no report; the run goes on (here, to its
    end), and in the sandbox the hard CPU limit or the server's kill ends it."""
    code = SIGNALLING.format(name="SIGUSR1").replace(
        "    for _", "    signal.signal(signal.SIGUSR1, lambda *a: None)\n    for _"
    )
    frames, exit_code = run_forked(code)
    assert "stopped" not in [f.header["type"] for f in frames]
    assert frames[-1].header["type"] == "done" and exit_code == 99


# --- through the real sandbox (the double exercise: 2 s CPU, 6 s wall) -----------------


def submit(grader: Grader, code: str) -> GradeResult:
    return grader.grade(grader.catalog.get("double"), "numpy", textwrap.dedent(code), "submit")


@pytest.mark.sandbox
def test_cpu_limit_in_the_sandbox(test_grader: Grader) -> None:
    result = submit(
        test_grader,
        """\
        def spin(n):
            total = 0
            while True:
                total += n


        def double(x):
            return spin(1) * x
        """,
    )
    running, after = result.tests
    assert running.message == (
        "CPU time limit of 2 s exceeded in test 'doubles a matrix', during double(x), "
        "at line 3: `while True:`"
    )
    assert 1000 < running.duration_ms < 6000, running.duration_ms
    assert after.status == Status.NOT_RUN


@pytest.mark.sandbox
def test_wall_limit_in_the_sandbox(test_grader: Grader) -> None:
    result = submit(
        test_grader,
        """\
        import threading


        def double(x):
            waiter = threading.Thread(target=threading.Event().wait, daemon=True)
            waiter.start()
            waiter.join()
            return x * 2
        """,
    )
    running, after = result.tests
    assert running.message == (
        "wall-clock time limit of 6 s exceeded in test 'doubles a matrix', during "
        "double(x), at line 7: `waiter.join()`"
    )
    assert 5000 < running.duration_ms < 6500, running.duration_ms
    assert after.status == Status.NOT_RUN


SPIN = "\n    while True:\n        pass\n"
SLEEP = "\n    time.sleep(60)\n"


@pytest.mark.sandbox
@pytest.mark.parametrize(
    ("setup", "body", "message"),
    [
        ("signal.signal(signal.SIGXCPU, signal.SIG_IGN)", SPIN, "CPU time limit of 2 s"),
        ("signal.signal(signal.SIGXCPU, lambda *a: None)", SPIN, "CPU time limit of 2 s"),
        (
            "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGXCPU})",
            SPIN,
            "CPU time limit of 2 s",
        ),
        ("signal.signal(signal.SIGUSR1, signal.SIG_IGN)", SLEEP, "wall-clock time limit of 6 s"),
        (
            "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGXCPU})",
            SLEEP,
            "wall-clock time limit of 6 s",
        ),
        # A handler of its own that never returns: the kill does not wait for it.
        (
            "signal.signal(signal.SIGUSR1, lambda *a: time.sleep(600))",
            SLEEP,
            "wall-clock time limit of 6 s",
        ),
    ],
    ids=[
        "SIGXCPU ignored",
        "SIGXCPU handled",
        "SIGXCPU blocked",
        "report ignored",
        "both blocked",
        "report handler sleeps",
    ],
)
def test_a_learner_who_takes_the_signal_is_stopped_on_time_with_the_plain_message(
    test_grader: Grader, setup: str, body: str, message: str
) -> None:
    code = f"import signal\nimport time\n\n\ndef double(x):\n    {setup}{body}"
    result = submit(test_grader, code)
    running = result.tests[0]
    assert running.message == f"{message} exceeded in test 'doubles a matrix'"
    # On time: the CPU limit's hard SIGKILL comes a second after SIGXCPU (the message
    # says the CPU limit, so before the 6 s wall limit); at the wall limit the server waits
    # for the report no longer than pool.REPORT_GRACE (0.2 s), not its 3 s grace for a
    # worker's exit report.
    assert result.duration_ms < 6000 + 800, result.duration_ms
    assert running.duration_ms > 1000
