"""From what a job sent back to a verdict per test, computed in the server.

Nothing a submission reports is taken as a verdict: a test passes only when its
observations match the reference's. Every way a run can end (an exception, a timeout,
a limit, a crash, an early exit, a forged or broken result) has its own clear message.
"""

from __future__ import annotations

import math
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from graders.grading import feedback
from graders.grading.compare import differences
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome
from graders.grading.references import Reference
from graders.grading.results import (
    MAX_OUTPUT_BYTES,
    OUTPUT_LIMIT,
    TRUNCATION_MARKER,
    Blame,
    GradeResult,
    Mode,
    Status,
    TestResult,
    not_run_message,
    truncate_output,
)
from graders.sandbox import wire
from graders.sandbox.wire import FrameType

# "Cannot allocate memory" is ENOMEM, e.g. an mmap past the address-space limit
# (memory_mmap_huge.py).
MEMORY_MARKERS = (
    "can't allocate memory",
    "DefaultCPUAllocator",
    "Unable to allocate",
    "Cannot allocate memory",
)


# Of a raising test's traceback, shown after its output (the learner's frames only).
TRACEBACK_CHARS = 4000


@dataclass(frozen=True)
class Context:
    exercise_slug: str
    track: str
    mode: Mode
    ids: list[str]  # the tests the job runs, by id, in order
    reference: Reference
    limits: JobLimits
    # Each entry point's parameter names (the reference's), to show a failing call.
    parameters: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def error(
        self, message: str, duration_ms: float = 0.0, blame: Blame = Blame.LEARNER
    ) -> GradeResult:
        """A result with no test verdicts: the run as a whole could not be graded, due to
        ``blame``."""
        return GradeResult(
            exercise=self.exercise_slug,
            track=self.track,
            mode=self.mode,
            status=Status.ERROR,
            message=message,
            total=len(self.ids),
            duration_ms=duration_ms,
            blame=blame,
        )


def syntax_error(ctx: Context, exc: SyntaxError) -> GradeResult:
    line, col = exc.lineno or 0, exc.offset or 0
    return ctx.error(f"SyntaxError at line {line}, column {col}: {exc.msg}")


def too_complex_to_compile(ctx: Context, exc: MemoryError | RecursionError) -> GradeResult:
    """CPython's compiler gives up on very deep nesting (thousands of unary signs, nested
    lambdas or conditional expressions, a sum of tens of thousands of terms)."""
    detail = str(exc) or "out of memory while parsing"
    return ctx.error(
        f"Python could not compile your code: it is nested too deeply "
        f"({type(exc).__name__}: {detail[:200]}); split very long expressions and deeply "
        "nested code into smaller steps"
    )


def build(ctx: Context, outcome: JobOutcome) -> GradeResult:
    duration = round(outcome.elapsed * 1000, 1)
    if outcome.malformed:
        return ctx.error(
            "the grader could not read your code's result "
            f"({outcome.malformed}); did your code write to the grader's channel?",
            duration,
        )

    results: dict[str, TestResult] = {}
    code_loaded = False
    load_output: dict[str, Any] = {}  # what the module printed while loading
    out_of_memory = False
    for frame in outcome.frames:
        kind = frame.header.get("type")
        if kind == FrameType.LOAD_ERROR:
            message, blame = _load_error_message(frame.header, ctx)
            return _with_load_output(ctx.error(message, duration, blame), frame.header)
        if kind == FrameType.TAMPERED:
            return ctx.error(
                "your code changed the grader's own code or a library function the tests "
                f"rely on ({_text(frame.header.get('what'))[:300]}), so no observation of "
                "this run can be trusted; solve the exercise without patching the grader, "
                "numpy or torch",
                duration,
            )
        if kind == FrameType.HARNESS_ERROR:
            message = _text(frame.header.get("message"))
            if not message.startswith("MemoryError"):
                return ctx.error(f"internal grading error: {message}", duration, Blame.GRADER)
            # The harness ran out of address space that the learner's code had taken
            # (threads' stacks, say): the learner hit the memory limit, the grader did not fail.
            out_of_memory = True
            break
        if kind == FrameType.CODE_LOADED and not code_loaded:
            code_loaded = True
            load_output = _load_output(frame.header)
        if kind == FrameType.TEST:
            test_id = frame.header.get("id")
            if test_id not in ctx.ids or test_id in results:
                return ctx.error(
                    "the grader received a result it did not ask for (test "
                    f"{_text(test_id)!r}); did your code write to the grader's channel?",
                    duration,
                )
            results[test_id] = _test_result(ctx, frame, outcome.pids_limited)

    stop, stop_blame = None, Blame.LEARNER
    timed = False  # a time limit stopped the run: the sandbox may have said where
    if len(results) < len(ctx.ids):
        if out_of_memory:
            stop = _memory_message(ctx.limits)
        else:
            stop, stop_blame = _stop_reason(ctx, outcome)
            timed = _time_limit(ctx.limits, outcome) is not None
    if stop is not None and not code_loaded:
        where = _where_stopped(ctx, outcome, None)[0] if timed else ""
        return ctx.error(f"{stop} while loading your code{where}", duration, stop_blame)
    tests: list[TestResult] = []
    stopped_at: str | None = None
    for test_id in ctx.ids:
        if test_id in results:
            tests.append(results[test_id])
            continue
        options = ctx.reference.options(test_id)
        hint, name = options.hint, options.name
        if stopped_at is None and stop is not None:
            # The first unfinished test was running when the job ended: it carries the
            # reason. The ones after it never started.
            message, ran = stop, 0.0
            if timed:
                message, ran = _timed_out(ctx, outcome, stop, test_id, results)
            tests.append(
                TestResult(
                    name=name,
                    id=test_id,
                    status=Status.ERROR,
                    message=message,
                    hint=hint,
                    duration_ms=ran,
                    blame=stop_blame,
                )
            )
            stopped_at = name
        else:
            tests.append(
                TestResult(
                    name=name,
                    id=test_id,
                    status=Status.NOT_RUN,
                    message=not_run_message(stopped_at or "?"),
                    hint=hint,
                    blame=None,
                )
            )
    passed = sum(t.status == Status.PASS for t in tests)
    if passed == len(tests) and tests:
        status, message = Status.PASS, f"{passed}/{len(tests)} tests passed"
    else:
        status = Status.FAIL
        message = f"{passed}/{len(tests)} tests passed"
    return GradeResult(
        exercise=ctx.exercise_slug,
        track=ctx.track,
        mode=ctx.mode,
        status=status,
        message=message,
        passed=passed,
        total=len(ctx.ids),
        duration_ms=duration,
        tests=tests,
        **load_output,
    )


def _test_result(ctx: Context, frame: wire.Frame, pids_limited: bool = False) -> TestResult:
    h = frame.header
    test_id = h["id"]
    options = ctx.reference.options(test_id)
    # All the sandbox sent (at most its capture limit, DRILL_OUTPUT_BYTES characters), cut
    # to what a result keeps, leaving room for the traceback a raising test adds after it.
    printed = h["output"] if isinstance(h.get("output"), str) else ""
    cut = h.get("output_truncated") is True
    room = OUTPUT_LIMIT - len(TRUNCATION_MARKER)
    room -= TRACEBACK_CHARS + 1 if h.get("status") == "raised" else 0
    output = truncate_output(printed, room, already_truncated=cut)
    duration = _number(h.get("duration_ms"), 0.0, ctx.limits.wall_seconds * 1000 + 1000)
    common: dict[str, Any] = {
        "name": options.name,  # the reference's, never the sandbox's
        "id": test_id,
        "hint": options.hint,
        "duration_ms": duration or 0.0,
        **_output_size(h, printed, cut or output != printed),
        # What the learner's code did, unless shown otherwise below. Always said, so that
        # no message text (which learner code partly writes) is ever read for it.
        "blame": Blame.LEARNER,
    }
    if duration is None:
        return TestResult(
            **common,
            status=Status.ERROR,
            output=output,
            message="the grader could not read this test's result (its duration is not a "
            "number of milliseconds within the time limit)",
        )
    status = h.get("status")
    if status == "ok":
        try:
            got = wire.decode_value(h.get("obs"), frame.body)
        except wire.WireError as exc:
            # Only a stream written past the harness gets here: the encoder sends nothing
            # the decoder refuses.
            return TestResult(
                **common,
                status=Status.ERROR,
                output=output,
                message=f"the values your code returned arrived damaged ({exc}); did your "
                "code write to the grader's channel?",
            )
        problems = differences(ctx.reference.observations[test_id], got, options.tolerance)
        if not problems:
            return TestResult(**common, status=Status.PASS, output=output)
        # The calls are read only to explain a failure (some 100 a test on a sweep).
        calls, origins, _ = feedback.read_calls(h)
        message = feedback.message(problems, calls, origins, ctx.parameters)
        return TestResult(**common, status=Status.FAIL, message=message, output=output)
    calls, _, failed = feedback.read_calls(h)
    call = feedback.failed_call(calls, failed, ctx.parameters)
    if status == "missing":
        return TestResult(
            **common,
            status=Status.ERROR,
            output=output,
            message=f"your code does not define a function named {_text(h.get('message'))}",
        )
    if status == "unencodable":
        last = h.get("last_call")
        what = (
            f"the value {call or last} returned" if isinstance(last, str) else "the value observed"
        )
        if call is not None and call.startswith("case "):  # "case 'A', f(x)": the case first
            label, _, rendered = call.partition(", ")
            what = f"in {label}, the value {rendered} returned"
        return TestResult(
            **common,
            status=Status.FAIL,
            output=output,
            message=f"{what} cannot be checked: {_text(h.get('message'))}",
        )
    if status == "raised":
        message, traceback, blame = _exception_message(
            h.get("error"),
            h.get("last_call"),
            ctx.limits,
            _text(h.get("returned"))[:200],
            pids_limited,
        )
        if call is not None and blame is not Blame.TEST:
            lines = [f"In {call}:", *feedback.setup(calls, failed, ctx.parameters), message]
            message = "\n".join(lines)
        if traceback:
            output = f"{output}\n{traceback}" if output else traceback
        return TestResult(
            **{**common, "blame": blame}, status=Status.ERROR, message=message, output=output
        )
    # The harness sends no other status: only a stream written past it gets here.
    return TestResult(
        **common,
        status=Status.ERROR,
        output=output,
        message=f"the grader received an unknown test status {_text(status)!r}",
    )


def _exception_message(
    error: Any, last_call: Any, limits: JobLimits, returned: str = "", pids_limited: bool = False
) -> tuple[str, str, Blame]:
    """The message and traceback of a test that raised, and who it is due to: the test
    itself when it failed before calling the learner's code, else the learner."""
    error = error if isinstance(error, dict) else {}
    kind = _text(error.get("type")) or "Exception"
    text = plain_message(_text(error.get("message")))
    line = _number(error.get("line"), 1, 10**7)
    traceback = _text(error.get("traceback"))[:TRACEBACK_CHARS]
    code = " ".join(_text(error.get("code"))[:200].split())
    where = f" (line {int(line)}{': ' + code if code else ''})" if isinstance(line, int) else ""
    if kind == "MemoryError" or any(m in text for m in MEMORY_MARKERS):
        return f"{_memory_message(limits)}{where}", traceback, Blame.LEARNER
    if kind == "OSError" and "File too large" in text:
        return (
            "output limit exceeded: your code wrote more than "
            f"{limits.raw_output_bytes // 1024} KiB "
            f"to stdout/stderr{where}",
            traceback,
            Blame.LEARNER,
        )
    if pids_limited and kind == "RuntimeError" and "can't start new thread" in text:
        # The job cgroup's pids.max refused it (the server read the kernel's count).
        return (
            f"your code started more threads than the limit of {limits.processes} allows "
            f"(RuntimeError: {text}){where}",
            traceback,
            Blame.LEARNER,
        )
    if kind == "RecursionError":
        return f"maximum recursion depth exceeded{where}", traceback, Blame.LEARNER
    if kind == "SystemExit":
        return (
            f"your code called sys.exit({text}){where}; return a value instead",
            traceback,
            Blame.LEARNER,
        )
    detail = f"{kind}: {text}" if text else kind
    if kind == "PermissionError" and "Operation not permitted" in text:
        detail += (
            " (the sandbox does not allow starting programs or processes, signalling other "
            "processes or opening network connections)"
        )
    if error.get("in_learner_code"):
        return f"your code raised {detail}{where}", traceback, Blame.LEARNER
    if isinstance(last_call, str):
        what = f" ({returned})" if returned else ""
        return (
            f"the test could not use what {last_call} returned{what}: {detail}",
            traceback,
            Blame.LEARNER,
        )
    return f"the test failed before calling your code: {detail}", traceback, Blame.TEST


# Lines of a library's error message that speak to its own users, not to a learner:
# links, debugging switches, compiler tips.
_NOISE = ("http://", "https://", "torch.compile", "TORCH_", "TORCHDYNAMO", "torch._dynamo")
_NOISE_START = ("hint:", "tip:", "note:", "you can suppress", "set the environment")


def plain_message(text: str) -> str:
    """An exception's message trimmed to what a learner needs: its first paragraph,
    without links and debugging tips, at most 600 characters."""
    kept: list[str] = []
    for line in text.strip().splitlines():
        if not line.strip():
            if kept:
                break
            continue
        lowered = line.strip().lower()
        if any(n in line for n in _NOISE) or lowered.startswith(_NOISE_START):
            continue
        kept.append(line.rstrip())
    result = "\n".join(kept) if kept else text.strip()[:600]
    return result if len(result) <= 600 else result[:599] + "…"


def _load_error_message(h: dict[str, Any], ctx: Context) -> tuple[str, Blame]:
    error = h.get("error") if isinstance(h.get("error"), dict) else {}
    assert isinstance(error, dict)
    kind = _text(error.get("type")) or "Exception"
    if kind == "SyntaxError":
        line, col = _number(error.get("line"), 0, 10**7), _number(error.get("col"), 0, 10**7)
        message = f"SyntaxError at line {line}, column {col}: {_text(error.get('message'))}"
    else:
        message, _, blame = _exception_message(error, None, ctx.limits)
        message = message.replace("your code raised", "your code raised, while loading,", 1)
        return message, blame
    return message, Blame.LEARNER


def _time_limit(limits: JobLimits, outcome: JobOutcome) -> str | None:
    """The time limit that ended the run, as its message begins (the limit and the figure
    the exercise sets, which its statement states), or None when none did. Read from how
    the run ended (the server's kill, the exit status, the CPU time the worker measured),
    never from what the sandbox sent."""
    if outcome.killed_for == "wall":
        return f"wall-clock time limit of {limits.wall_seconds:g} s exceeded"
    code = outcome.exit_code
    if (
        outcome.killed_for is None
        and not outcome.worker_lost
        and code is not None
        and -code in (signal.SIGXCPU, signal.SIGKILL)
        and outcome.cpu_seconds >= limits.cpu_seconds - 0.5
    ):
        return f"CPU time limit of {limits.cpu_seconds:g} s exceeded"
    return None


def _where_stopped(
    ctx: Context, outcome: JobOutcome, running: str | None
) -> tuple[str, float | None]:
    """Where the job was when a time limit stopped it, as the sandbox reported it (its
    first stopped frame), as the end of a message: ", during f(x), at line 12: `code`";
    and how long the running test had run, in ms. ``("", None)`` unless that report is
    about ``running``, the test the server knows was running (None: the code was loading).

    The report is display text, like the call notes of a test frame: learner code can
    forge or suppress it, which changes no more than the details of its own message."""
    stopped = next(
        (f.header for f in outcome.frames if f.header.get("type") == FrameType.STOPPED), None
    )
    if stopped is None or "test" not in stopped or stopped["test"] != running:
        return "", None
    parts = []
    calls, _, failed = feedback.read_calls(stopped)
    if failed is not None:
        call = calls[failed]
        during = f"during {call.render(ctx.parameters)}"
        parts.append(during if call.case is None else f"in case {call.case!r}, {during}")
    line = _number(stopped.get("line"), 1, 10**7)
    if isinstance(line, int):
        code = " ".join(_text(stopped.get("code"))[:200].split())
        parts.append(f"at line {line}: `{code}`" if code else f"at line {line}")
    ran = _number(stopped.get("duration_ms"), 0.0, ctx.limits.wall_seconds * 1000 + 1000)
    return "".join(f", {part}" for part in parts), None if ran is None else float(ran)


def _timed_out(
    ctx: Context,
    outcome: JobOutcome,
    stop: str,
    test_id: str,
    finished: Mapping[str, TestResult],
) -> tuple[str, float]:
    """The message of the test a time limit stopped, and how long it ran (ms): as the
    sandbox measured it, or else at most what the run took beyond the finished tests."""
    name = ctx.reference.options(test_id).name
    where, ran = _where_stopped(ctx, outcome, test_id)
    if ran is None:
        ran = max(0.0, outcome.elapsed * 1000 - sum(t.duration_ms for t in finished.values()))
    return f"{stop} in test {name!r}{where}", round(ran, 1)


def _stop_reason(ctx: Context, outcome: JobOutcome) -> tuple[str, Blame]:
    """Why the run ended before every test reported, and who that is due to."""
    limits = ctx.limits
    timed = _time_limit(limits, outcome)
    if timed is not None:
        return timed, Blame.LEARNER
    if outcome.killed_for == "result_size":
        return (
            f"your result is larger than the limit of {limits.result_bytes // 2**20} MiB",
            Blame.LEARNER,
        )
    if outcome.killed_for == "memory":  # the kernel stopped it at the job cgroup's limit
        return _memory_message(limits), Blame.LEARNER
    if outcome.worker_lost:
        return (
            "the sandbox stopped unexpectedly while running your code; please submit again "
            "(if this repeats, something in your code may be stopping it)",
            Blame.INFRASTRUCTURE,
        )
    code = outcome.exit_code
    if code is not None and code < 0:
        sig = -code
        if outcome.maxrss_kb * 1024 >= 0.9 * limits.memory_bytes:
            return _memory_message(limits), Blame.LEARNER
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"crashed with {name}", Blame.LEARNER
    if code == 70:
        return "internal grading error: the sandbox harness failed", Blame.GRADER
    return (
        f"your code ended the process (exit status {code}) before the tests finished",
        Blame.LEARNER,
    )


def _memory_message(limits: JobLimits) -> str:
    return f"memory limit of {limits.memory_mb} MiB exceeded"


def _load_output(h: Mapping[str, Any]) -> dict[str, Any]:
    """A result's fields of what the learner's module printed while it loaded (the
    output fields of a code_loaded or load_error frame), cut as a test's output is."""
    printed = h["output"] if isinstance(h.get("output"), str) else ""
    cut = h.get("output_truncated") is True
    output = truncate_output(printed, OUTPUT_LIMIT - len(TRUNCATION_MARKER), already_truncated=cut)
    sizes = _output_size(h, printed, cut or output != printed)
    return {"load_output": output, **{f"load_{key}": value for key, value in sizes.items()}}


def _with_load_output(result: GradeResult, h: Mapping[str, Any]) -> GradeResult:
    """``result`` with the output of the frame ``h`` as what the module printed while
    loading (validated again: the submission's output budget applies to it)."""
    return GradeResult.model_validate({**result.model_dump(), **_load_output(h)})


def _output_size(h: Mapping[str, Any], printed: str, truncated: bool) -> dict[str, Any]:
    """The output fields of a test result besides ``output``. The count is the
    sandbox's word: kept only when it is a whole number of bytes no smaller than the
    characters it sent (each character written is at least one byte, and each byte read
    back at most one character)."""
    written = h.get("output_bytes")
    if type(written) is not int or not len(printed) <= written <= MAX_OUTPUT_BYTES:
        return {"output_truncated": truncated, "output_bytes": None}
    return {
        "output_truncated": truncated,
        "output_bytes": written,
        "output_bytes_at_least": h.get("output_bytes_at_least") is True,
    }


def _text(value: Any) -> str:
    return value[:4000] if isinstance(value, str) else ""


def _number(value: Any, low: float, high: float) -> float | int | None:
    """A number from the sandbox, or None unless it is finite and within [low, high]."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if low <= value <= high else None
