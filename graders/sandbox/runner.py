"""One job, run in a freshly forked child: load the code, run each scenario, stream results.

Everything here runs in the process that executes the submission (or, in the reference
sandbox, the reference solution). It reports observations, never verdicts: the server
compares them with the reference and decides.
"""

from __future__ import annotations

import io
import linecache
import marshal
import os
import random
import signal
import sys
import time
import traceback
import types
import zlib
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from graders.sandbox import checkpointing, integrity, testing
from graders.sandbox.encode import Encoder
from graders.sandbox.wire import FrameType, WireError, pack

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None  # type: ignore[assignment]

TESTS_FILENAME = "<tests>"  # as graders.grading.jobs compiles it
# No job's header without a raw output cap comes near this (prewarm, references).
MAX_RAW_OUTPUT = 1 << 62
# The one module a job adds to sys.modules: the tests module is never registered, so
# learner code cannot find the tests (or their helpers) by name.
OWN_MODULES = frozenset({"solution"})
# The modules of the warm worker, taken before it forks (see snapshot_modules).
PRELOADED: frozenset[str] = frozenset()
# The folder sys.path finds the harness in; off sys.path while learner code runs.
HARNESS_FOLDER = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(testing.__file__)))
)
# The numpy, torch and builtins part of the integrity snapshot, built once per worker.
LIBRARIES: integrity.Snapshot | None = None
HARNESS: integrity.Snapshot | None = None  # the harness's functions (harness_functions)
# The time limits' signals: the kernel sends SIGXCPU at the soft CPU limit (SIGKILL at the
# hard one, a second later); the warm worker sends REPORT_SIGNAL at the server's request
# when the wall-clock limit is reached (and the server kills the child soon after).
REPORT_SIGNAL = signal.SIGUSR1
TIME_SIGNALS = (signal.SIGXCPU, REPORT_SIGNAL)
# Frames walked out from where a time limit stopped the job to find the learner's line.
MAX_STOPPED_FRAMES = 1000
# Bound here, before any learner code runs: what the handler of a time limit calls
# cannot be swapped through the os, signal or time modules.
_kill, _getpid, _exit = os.kill, os.getpid, os._exit
_set_handler, _sigmask, _clock = signal.signal, signal.pthread_sigmask, time.perf_counter
_SIGXCPU, _SIGKILL, _SIG_DFL, _SIG_UNBLOCK = (
    signal.SIGXCPU,
    signal.SIGKILL,
    signal.SIG_DFL,
    signal.SIG_UNBLOCK,
)


def snapshot_modules() -> None:
    """Record what the warm worker has imported. Children then count, not copy, the
    module table: building a set of it would write to thousands of inherited pages."""
    global PRELOADED
    PRELOADED = frozenset(sys.modules)


def newly_imported() -> list[str]:
    if len(sys.modules) == len(PRELOADED) + len(OWN_MODULES):
        return []
    return sorted(set(sys.modules) - PRELOADED - OWN_MODULES)


def utf8_size(s: str) -> int:
    """The length of ``s`` in UTF-8 (lone surrogates as three bytes each), without
    encoding a huge string at once: learner code may print hundreds of megabytes."""
    if s.isascii():  # O(1) in CPython: the common case costs nothing
        return len(s)
    step = 1 << 16
    return sum(
        len(s[i : i + step].encode("utf-8", "surrogatepass")) for i in range(0, len(s), step)
    )


class BoundedText(io.TextIOBase):
    """sys.stdout/sys.stderr for learner code: keeps the first ``limit`` characters, and
    counts every byte written (as UTF-8), kept or not."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.dropped = 0
        self.written = 0

    def writable(self) -> bool:
        return True

    def write(self, s: Any) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        room = self.limit - self.kept
        if room > 0:
            self.parts.append(s[:room])
            self.kept += min(len(s), room)
        self.dropped += max(0, len(s) - room)
        self.written += utf8_size(s)
        return len(s)

    def take(self) -> tuple[str, int, int]:
        """The text kept, how many characters were dropped, how many bytes were written."""
        text, dropped, written = "".join(self.parts), self.dropped, self.written
        self.parts, self.kept, self.dropped, self.written = [], 0, 0, 0
        return text, dropped, written


@dataclass(frozen=True)
class Captured:
    """What a test printed: the text kept, whether some was dropped, and how many bytes
    it wrote in all (``at_least``: raw writes hit the sandbox's cap, so further ones
    failed and were not counted)."""

    text: str
    truncated: bool
    written: int
    at_least: bool

    def header(self) -> dict[str, Any]:
        """The output fields of a frame."""
        return {
            "output": self.text,
            "output_truncated": self.truncated,
            "output_bytes": self.written,
            "output_bytes_at_least": self.at_least,
        }

    def within(self, limit: int) -> Captured:
        """This capture cut to ``limit`` characters: the first test keeps what the code's
        output while loading (sent apart, in the code_loaded frame) left of the capture
        limit, so that the two together keep no more than one test did before."""
        if len(self.text) <= limit:
            return self
        return Captured(self.text[: max(0, limit)], True, self.written, self.at_least)


class Capture:
    """Per-test capture of Python-level and fd-level output."""

    def __init__(self, limit: int, raw_limit: int) -> None:
        self.limit = limit
        self.raw_limit = raw_limit  # RLIMIT_FSIZE: fd-level writes past it fail
        self.text = BoundedText(limit)
        self.fd = -1

    def start(self) -> None:
        sys.stdout.flush() if sys.stdout is not self.text else None
        self.fd = os.memfd_create("output")
        os.dup2(self.fd, 1)
        os.dup2(self.fd, 2)
        sys.stdout = sys.stderr = self.text

    def stop(self) -> Captured:
        text, dropped, written = self.text.take()
        raw, size = b"", 0
        if self.fd >= 0:
            size = os.fstat(self.fd).st_size
            raw = os.pread(self.fd, self.limit, 0)
            dropped += max(0, size - len(raw))
            os.close(self.fd)
            self.fd = -1
        out = raw.decode("utf-8", "replace") + text
        if len(out) > self.limit:
            dropped += len(out) - self.limit
            out = out[: self.limit]
        return Captured(out, dropped > 0, written + size, size >= self.raw_limit)


def test_seed(spec: testing.TestSpec, variant: int | None) -> int:
    """A test's seed: from its id, so a rename of its display name keeps its inputs; a
    ``per_learner`` test mixes in the job's variant (the learner's, chosen by the server)."""
    if spec.per_learner and variant is not None:
        return zlib.crc32(f"{spec.id}|{variant}".encode())
    return zlib.crc32(spec.id.encode())


def seed_everything(seed: int) -> None:
    """Seed random, NumPy and torch the same way for the reference and the submission."""
    random.seed(seed)
    np.random.seed(seed)
    if torch is not None:
        # The CPU generator only: torch.manual_seed also queues lazy seeding of every
        # accelerator backend, recording a stack trace each time (about 1 ms per call).
        torch.default_generator.manual_seed(seed)


def call_notes(scenario: testing.Scenario, observations: Any) -> dict[str, Any]:
    """Which call of the learner's code each observation came from, and those calls as
    the learner would read them (display only: the server renders them and never
    trusts them for a verdict)."""
    log = scenario.call_log
    call_of: dict[str, int] = {}
    if type(observations) is dict:
        for key, value in observations.items():
            index = scenario.call_of(value)
            if index is not None and type(key) is str:
                call_of[key] = index
    used = set(call_of.values()) | ({len(log) - 1} if log else set())
    return {
        "calls": _with_code(scenario, [[i, *log[i]] for i in sorted(used)]),
        "call_of": call_of,
        "failed_call": len(log) - 1 if log else None,
    }


# Characters of argument code one test frame carries at most (display text only).
MAX_CODE_TEXT = 32 * 1024


def _with_code(scenario: testing.Scenario, calls: list[list[Any]]) -> list[list[Any]]:
    """Each call described, with its arguments as code a learner can paste (by position
    and by name, each a line of Python or None), while the frame's budget lasts."""
    left = MAX_CODE_TEXT
    for call in calls:
        code: dict[str, Any] = {"args": [], "kwargs": {}}
        if left > 0:
            try:
                args, kwargs = scenario.arguments_code(call[0])
                code = {"args": args, "kwargs": kwargs}
                left -= sum(len(c or "") for c in [*args, *kwargs.values()])
            except Exception:  # display only: what cannot be written out is left out
                code = {"args": [], "kwargs": {}}
        call.append(code)
    return calls


def describe_exception(exc: BaseException, filename: str) -> dict[str, Any]:
    """Type, message and a traceback showing only frames of the learner's file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
    try:
        message = str(exc)
    except Exception:
        message = "(the exception's message could not be shown)"
    # The class's own name, read past any metaclass property: learner code can make
    # ``__name__`` raise, which must not turn into an internal error
    # (escape_exception_tricks.py).
    kind = type.__dict__["__name__"].__get__(type(exc))
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    try:
        lines += traceback.format_exception_only(type(exc), exc) if frames else []
    except Exception:
        lines.append(f"{kind}: {message}\n")
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        frames_line = exc.lineno
        lines = traceback.format_exception_only(type(exc), exc)
    else:
        frames_line = frames[-1].lineno if frames else None
    return {
        "type": kind[:200],
        "message": message[:2000],
        "line": frames_line,
        "code": (frames[-1].line or "")[:200] if frames else "",
        "col": getattr(exc, "offset", None) if isinstance(exc, SyntaxError) else None,
        "traceback": "".join(lines)[-8000:] if frames or isinstance(exc, SyntaxError) else "",
        "in_learner_code": bool(frames) or isinstance(exc, SyntaxError),
    }


def learner_line(frame: types.FrameType | None, filename: str, code: str) -> dict[str, Any]:
    """Where the innermost frame of the learner's file is, as ``{"line": 12, "code": "for
    plan in ..."}`` (the line's text as the learner wrote it, like a traceback shows it);
    empty when no frame of that file is running."""
    for _ in range(MAX_STOPPED_FRAMES):
        if frame is None:
            return {}
        name = frame.f_code.co_filename
        if type(name) is str and name == filename:
            line = frame.f_lineno
            if type(line) is not int:
                return {}
            lines = code.splitlines()  # as linecache splits it (load_module)
            text = lines[line - 1].strip()[:200] if 0 < line <= len(lines) else ""
            return {"line": line, "code": text}
        frame = frame.f_back
    return {}


def _end(signum: int) -> NoReturn:
    """End this process now: by SIGXCPU's default action after the CPU limit's signal, so
    that its exit status says so as it would without a handler; else by SIGKILL."""
    try:
        if signum == _SIGXCPU:
            _set_handler(_SIGXCPU, _SIG_DFL)
            _sigmask(_SIG_UNBLOCK, (_SIGXCPU,))
            _kill(_getpid(), _SIGXCPU)
    finally:
        _kill(_getpid(), _SIGKILL)
    _exit(70)  # not reached: SIGKILL cannot be caught


def load_module(
    name: str, code: str | types.CodeType, filename: str, register: bool = True
) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = filename
    if isinstance(code, str):
        # So tracebacks can show the learner's lines.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        code = compile(code, filename, "exec", dont_inherit=True)
    if register:
        sys.modules[name] = module
    exec(code, module.__dict__)
    return module


def freeze_harness() -> None:
    """Make the harness's classes immutable types (in the warm worker, before any job)."""
    from graders.sandbox import encode, records

    for cls in (
        testing.Scenario,
        testing.TestSpec,
        testing.Case,
        records.Calls,
        records.Kept,
        encode.Encoder,
        integrity.Snapshot,
        FrameType,  # the kinds this process writes: an enum whose members stay put
        Job,
        Capture,
        Captured,
        BoundedText,
    ):
        integrity.freeze_type(cls)


def _harness_modules() -> tuple[types.ModuleType, ...]:
    from graders.sandbox import encode, memory, records, wire

    harness = (testing, checkpointing, encode, memory, records, wire, integrity)
    return (*harness, sys.modules[__name__])


def harness_functions() -> integrity.Snapshot:
    """The harness's functions and what each runs: the same in every job, so noted once
    per process (about 300 functions: 1 ms a job otherwise)."""
    snapshot = integrity.Snapshot()
    for module in _harness_modules():
        snapshot.functions_of(module.__name__, vars(module))
    return snapshot


def job_snapshot(tests: types.ModuleType) -> integrity.Snapshot:
    global LIBRARIES, HARNESS
    if LIBRARIES is None:
        LIBRARIES = integrity.library_snapshot()
    if HARNESS is None:
        HARNESS = harness_functions()
    snapshot = integrity.Snapshot()
    for module in _harness_modules():
        snapshot.exact(module.__name__, vars(module), functions=False)
    snapshot.exact("the tests module", vars(tests))
    return snapshot


def refuse_function_changes() -> None:
    """In the warm worker, before any job: no code or defaults of a function of the
    harness or of the libraries' namespaces the tests rely on can be replaced from now
    on (integrity.refuse_function_changes); the snapshots taken later leave them out of
    their comparison, which would cost each call of learner code ~50 µs."""
    functions = harness_functions().functions() + integrity.library_snapshot().functions()
    integrity.refuse_function_changes(functions)


class Job:
    """Run a decoded job header, writing frames to ``out_fd``."""

    def __init__(self, header: dict[str, Any], out_fd: int, body: bytes) -> None:
        self.h = header
        # Compiled by the server from tests.py: trusted data flowing into the sandbox.
        self.tests_code = marshal.loads(body)  # noqa: S302
        self.out_fd = out_fd
        self.filename = header["filename"]
        limits = header["limits"]
        # The raw cap is absent from the headers of prewarm and of the references' jobs:
        # then no write can reach a cap the count would stop at.
        self.capture = Capture(
            limits["output_bytes"], limits.get("raw_output_bytes", MAX_RAW_OUTPUT)
        )
        self.max_result = limits["result_bytes"]
        self.max_text = limits.get("text_bytes", 4 << 20)
        self.snapshot = integrity.Snapshot()
        # The test running now: its id, its scenario and when it started (where_stopped).
        self.running: tuple[str, testing.Scenario, float] | None = None
        self.sending = False  # a frame is being written: a time limit waits for its end
        self.stop_signal = 0  # the time limit's signal that came while one was
        self.stopping = False

    def send(self, header: dict[str, Any], body: bytes = b"") -> None:
        data = pack(header, body)
        view = memoryview(data)
        self.sending = True
        try:
            while view:
                n = os.write(self.out_fd, view)
                view = view[n:]
        finally:
            self.sending = False
        if self.stop_signal and not self.stopping:
            self.on_time_limit(self.stop_signal, None)

    def arm_time_limits(self) -> dict[int, Any]:
        """Have each time limit's signal report where the job is before the child ends
        (on_time_limit); return the handlers the signals had, to put back."""
        try:
            return {sig: _set_handler(sig, self.on_time_limit) for sig in TIME_SIGNALS}
        except ValueError:  # not the main thread: the harness run in-process by a tool
            return {}

    def on_time_limit(self, signum: int, frame: types.FrameType | None) -> None:
        """A time limit is reached: send a stopped frame (where_stopped), then end the
        process (_end). A frame being written is finished first (send calls back).

        Learner code can replace this handler, or block or ignore its signals: that costs
        it only the details of its own message. Neither the kernel's hard CPU limit (a
        SIGKILL a second after SIGXCPU) nor the server's kill, a moment after it asked
        for the report at the wall-clock limit, waits for it."""
        if self.stopping:
            return
        if self.sending:
            self.stop_signal = signum
            return
        self.stopping = True
        try:
            self.send(self.where_stopped(frame))
        finally:
            _end(signum)

    def where_stopped(self, frame: types.FrameType | None) -> dict[str, Any]:
        """The stopped frame: the test running (None while the code loads) and for how
        long, the call of learner code in progress, and the learner's line. Display text
        only: the server checks it against what it knows and bounds every field."""
        header: dict[str, Any] = {"type": FrameType.STOPPED, "test": None}
        if self.running is not None:
            test_id, scenario, started = self.running
            header["test"] = test_id
            header["duration_ms"] = round((_clock() - started) * 1000, 3)
            # A call is in progress from its start until it returns (``returned`` is set).
            if scenario.call_log and scenario.returned is None:
                header.update(call_notes(scenario, None))
        header.update(learner_line(frame, self.filename, self.h["code"]))
        return header

    def run(self) -> None:
        testing.REGISTRY.clear()
        try:
            tests = load_module("drill_tests", self.tests_code, TESTS_FILENAME, register=False)
        except BaseException as exc:
            self.send(
                {"type": FrameType.HARNESS_ERROR, "message": f"tests failed to load: {exc!r}"}
            )
            return
        self.snapshot = job_snapshot(tests)
        specs = {spec.id: spec for spec in testing.REGISTRY}
        self.send({"type": FrameType.LOADED, "tests": [s.options() for s in testing.REGISTRY]})
        previous = self.arm_time_limits()
        try:
            with integrity.hidden_modules("graders", HARNESS_FOLDER):
                finished = self.run_code(specs)
            if finished:
                # Which modules the job had to import: proof that nothing heavy loads per job.
                self.send({"type": FrameType.DONE, "imported": newly_imported()})
        finally:
            # As they were (a spare child runs the prewarm job before the real one).
            for sig, handler in previous.items():
                _set_handler(sig, _SIG_DFL if handler is None else handler)

    def check_integrity(self) -> None:
        """Raise Tampered when learner code changed what the tests rely on."""
        assert LIBRARIES is not None and HARNESS is not None
        what = self.snapshot.changed() or HARNESS.changed() or LIBRARIES.changed()
        if what is not None:
            raise integrity.Tampered(what)

    def run_code(self, specs: dict[str, testing.TestSpec]) -> bool:
        """Load the submission and run the tests; False when the run ended early."""
        self.capture.start()
        try:
            module = load_module("solution", self.h["code"], self.filename)
            self.check_integrity()
        except integrity.Tampered as exc:
            self.capture.stop()
            self.send({"type": FrameType.TAMPERED, "what": str(exc)[:500]})
            return False
        except BaseException as exc:
            captured = self.capture.stop()
            self.send(
                {
                    "type": FrameType.LOAD_ERROR,
                    "error": describe_exception(exc, self.filename),
                    **captured.header(),
                }
            )
            return False
        # What the module printed while loading goes apart, with the frame that says it
        # loaded; the first test keeps what it left of the capture limit.
        load_output = self.capture.stop()
        self.send({"type": FrameType.CODE_LOADED, **load_output.header()})
        room = self.capture.limit - len(load_output.text)

        ids = self.h["tests"] if self.h["tests"] is not None else list(specs)
        for test_id in ids:
            spec = specs.get(test_id)
            if spec is None:
                message = f"no test with id {test_id!r}"
                self.send({"type": FrameType.HARNESS_ERROR, "message": message})
                return False
            if not self.run_test(spec, module, room):
                return False
            room = self.capture.limit
        return True

    def run_test(self, spec: testing.TestSpec, module: types.ModuleType, room: int) -> bool:
        """Run one test and send its frame, with at most ``room`` characters of its output;
        False when learner code tampered with it."""
        seed = test_seed(spec, self.h.get("variant"))
        scenario = testing.Scenario(
            module.__dict__, self.h["entry_points"], seed, after_call=self.check_integrity
        )
        seed_everything(seed)
        self.capture.start()
        started = time.perf_counter()
        self.running = (spec.id, scenario, started)
        frame: dict[str, Any] = {"type": FrameType.TEST, "id": spec.id}
        body = b""
        try:
            observations = spec.scenario(scenario)
            self.check_integrity()
            if type(observations) is not dict:
                raise TypeError(f"test {spec.name!r} returned {type(observations).__name__}")
            frame.update(call_notes(scenario, observations))
            encoder = Encoder(self.max_result, self.max_text)
            try:
                frame["obs"] = encoder.value(observations)
                body = encoder.body
                frame["status"] = "ok"
            except (WireError, RecursionError, TypeError, ValueError) as exc:
                frame["status"] = "unencodable"
                frame["message"] = (
                    str(exc)
                    if isinstance(exc, WireError)
                    else "it is nested too deeply"
                    if isinstance(exc, RecursionError)
                    else f"it holds a value of an unsupported kind ({type(exc).__name__})"
                )
                frame["last_call"] = scenario.last_call
        except integrity.Tampered as exc:
            self.capture.stop()
            self.send({"type": FrameType.TAMPERED, "what": str(exc)[:500]})
            return False
        except testing.MissingEntryPoint as exc:
            frame["status"] = "missing"
            frame["message"] = str(exc)
        except BaseException as exc:
            frame["status"] = "raised"
            frame["error"] = describe_exception(exc, self.filename)
            frame["last_call"] = scenario.last_call
            frame["returned"] = scenario.returned
            frame.update(call_notes(scenario, None))
        frame["duration_ms"] = round((time.perf_counter() - started) * 1000, 3)
        frame.update(self.capture.stop().within(room).header())
        self.send(frame, body)
        self.running = None
        return True
