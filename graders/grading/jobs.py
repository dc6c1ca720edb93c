"""A job and its outcome: what the server sends a sandbox child, and what came back.

A :class:`Job` is one frame: its header (JSON) carries the code to run, which tests, the
entry points and the limits; its body carries the tests module already compiled
(``marshal``), since compiling it in every child would cost more than running most tests.
Marshal data only ever flows from the server into the sandbox, never back.

A :class:`JobOutcome` is what the pool collected while the job ran: the child's result
frames, and how the run ended.

Both travel between machines (an API node and a remote grading worker) as bytes, through
``to_bytes()`` and ``from_bytes()``, in an envelope of their own::

    magic (4 bytes) | version (u16 LE) | meta length (u32 LE) | payload length (u64 LE)
    | meta (UTF-8 JSON object) | payload

The magic is ``b"DRJB"`` for a job and ``b"DROC"`` for an outcome, so neither is ever
read as the other; the version is :data:`ENVELOPE_VERSION`. A job's meta is
``{"header": <the job header>}`` and its payload the job's body. An outcome's meta holds
its scalar fields and its payload the result frames in the wire format of
:mod:`graders.sandbox.wire`, each header byte for byte as the pool read it from the
child. ``from_bytes`` accepts exactly what ``to_bytes`` writes: the lengths must add up
to the whole input, the meta must be strict JSON (no duplicate keys, no NaN) with every
field present, of its type and in range, and no other field; an outcome's frames are
read again under the budget the pool applied to the job (:func:`result_budget`). Anything
else raises :class:`EnvelopeError` (a ``WireError``, so a ``ValueError``), which says what
is wrong.
"""

from __future__ import annotations

import ast
import json
import marshal
import math
import struct
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from graders.grading import pyparse
from graders.sandbox import wire
from graders.sandbox.wire import FrameType

if TYPE_CHECKING:
    from graders.grading.catalog import Exercise
    from graders.grading.isolation import JobLimits

FILENAME = "your_code.py"  # the learner's file, as tracebacks name it (not the reference)
TESTS_FILENAME = "<tests>"

# A result stream holds one frame per test plus "loaded", "code_loaded", "done" and at
# most one error frame; MAX_TESTS applies when a job runs every test of a track. A time
# limit's "stopped" frame fits in too: it comes after "done" only when every test ran,
# and otherwise at least one test frame is missing.
FRAMES_BESIDES_TESTS = 4
MAX_TESTS = 1000
# JSON values in all the headers of one result together (wire.count_values); bounds what
# decoding them costs the server (docs/security.md, "Bounded results").
MAX_RESULT_VALUES = 500_000

ENVELOPE_VERSION = 1
JOB_MAGIC = b"DRJB"
OUTCOME_MAGIC = b"DROC"
_ENVELOPE = struct.Struct("<4sHIQ")
ENVELOPE_PREFIX_SIZE = _ENVELOPE.size
# A job's meta is its header (the learner's code, mostly) plus a few bytes of envelope;
# its values are one per test name and entry point, and a few more. An outcome's meta is
# eight scalars.
MAX_JOB_META = wire.MAX_HEADER
MAX_JOB_META_VALUES = 100_000
MAX_OUTCOME_META = 64 * 1024
MAX_MESSAGE = 2000  # characters of JobOutcome.malformed (the pool's are a line long)
KILLED_FOR = ("wall", "result_size", "memory")
_INT_DIGITS = 20  # integers in a meta fit 64 bits


class EnvelopeError(wire.WireError):
    """Bytes that are not a job or an outcome this reader accepts (or a job or an outcome
    that cannot be written as one)."""


@dataclass(frozen=True)
class Job:
    header: dict[str, Any]
    body: bytes = field(default=b"", repr=False)

    def to_bytes(self) -> bytes:
        """The job in its envelope; EnvelopeError if ``from_bytes`` would refuse it."""
        _check_job_header(self.header)
        if len(self.body) > wire.MAX_JOB:
            raise EnvelopeError(f"job: body of {len(self.body)} bytes exceeds {wire.MAX_JOB}")
        return _seal(JOB_MAGIC, {"header": self.header}, bytes(self.body), "job", MAX_JOB_META)

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> Job:
        """A job read back from ``to_bytes``; EnvelopeError on anything else."""
        meta, body = _open(data, JOB_MAGIC, "job", MAX_JOB_META, wire.MAX_JOB)
        _fields(meta, {"header": dict}, "job")
        _check_job_header(meta["header"])
        return cls(meta["header"], body)


@dataclass
class JobOutcome:
    """What came back from one job, before any verdict is made."""

    frames: list[wire.Frame] = field(default_factory=list)
    malformed: str | None = None  # why the result stream could not be read
    exit_code: int | None = None  # negative: killed by that signal
    # "wall" or "result_size" when the server stopped it; "memory" when the kernel did, at
    # the job cgroup's memory limit
    killed_for: str | None = None
    cpu_seconds: float = 0.0
    maxrss_kb: int = 0
    worker_lost: bool = False
    elapsed: float = 0.0
    pids_limited: bool = False  # the job cgroup refused a thread or process at pids.max

    def _meta(self) -> dict[str, Any]:
        return {
            "malformed": self.malformed,
            "exit_code": self.exit_code,
            "killed_for": self.killed_for,
            "cpu_seconds": self.cpu_seconds,
            "maxrss_kb": self.maxrss_kb,
            "worker_lost": self.worker_lost,
            "elapsed": self.elapsed,
            "pids_limited": self.pids_limited,
        }

    def to_bytes(self) -> bytes:
        """The outcome in its envelope; EnvelopeError if a field is out of its range.

        Frames the pool read are written byte for byte as it read them (wire.frame_bytes),
        so ``from_bytes`` charges them to the same budget exactly as the pool did."""
        meta = self._meta()
        _check_outcome_meta(meta)
        payload = b"".join(wire.frame_bytes(frame) for frame in self.frames)
        return _seal(OUTCOME_MAGIC, meta, payload, "outcome", MAX_OUTCOME_META)

    @classmethod
    def from_bytes(
        cls, data: bytes | bytearray | memoryview, job: Job, limits: JobLimits
    ) -> JobOutcome:
        """An outcome read back from ``to_bytes``; EnvelopeError on anything else.

        ``job`` and ``limits`` are the ones the outcome answers, as the reader itself
        knows them (never taken from the bytes): its frames are read again under the
        budget the pool applied to that job (result_budget)."""
        budget = result_budget(job, limits)
        meta, payload = _open(data, OUTCOME_MAGIC, "outcome", MAX_OUTCOME_META, budget.max_bytes)
        _check_outcome_meta(meta)
        frames: list[wire.Frame] = []
        offset = 0
        while offset < len(payload):
            try:
                frame, used = wire.next_frame(payload, limits.result_bytes, budget, offset)
            except wire.WireError as exc:
                raise EnvelopeError(f"outcome: frame {len(frames)}: {exc}") from None
            if frame is None:
                left = len(payload) - offset
                raise EnvelopeError(f"outcome: the frames end inside a frame ({left} bytes left)")
            frames.append(frame)
            offset += used
        return cls(frames=frames, **meta)


def expected_tests(job: Job) -> int | None:
    """How many tests the job asks for; None when it runs them all."""
    tests = job.header.get("tests")
    return len(tests) if isinstance(tests, list) else None


def result_budget(job: Job, limits: JobLimits) -> wire.Budget:
    """What the result stream of ``job`` may hold (see wire.Budget): the pool charges the
    child's frames to it, and JobOutcome.from_bytes charges them again."""
    return wire.Budget(
        max_bytes=limits.result_bytes,
        max_frames=(expected_tests(job) or MAX_TESTS) + FRAMES_BESIDES_TESTS,
        max_header=limits.result_header_bytes,
        max_values=MAX_RESULT_VALUES,
    )


# --- the envelope ---------------------------------------------------------------------


def _seal(magic: bytes, meta: dict[str, Any], payload: bytes, what: str, max_meta: int) -> bytes:
    try:
        data = json.dumps(meta, separators=(",", ":"), allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise EnvelopeError(f"{what}: not JSON data: {exc}") from None
    if len(data) > max_meta:
        raise EnvelopeError(f"{what}: meta of {len(data)} bytes exceeds {max_meta}")
    return _ENVELOPE.pack(magic, ENVELOPE_VERSION, len(data), len(payload)) + data + payload


def _open(
    data: bytes | bytearray | memoryview, magic: bytes, what: str, max_meta: int, max_payload: int
) -> tuple[dict[str, Any], bytes]:
    """The envelope's meta (parsed) and payload; EnvelopeError if it is not one."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"{what}: expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if len(data) < ENVELOPE_PREFIX_SIZE:
        raise EnvelopeError(
            f"{what}: truncated: {len(data)} bytes, fewer than the "
            f"{ENVELOPE_PREFIX_SIZE}-byte prefix"
        )
    got, version, meta_len, payload_len = _ENVELOPE.unpack_from(data)
    if got != magic:
        other = {JOB_MAGIC: "a job", OUTCOME_MAGIC: "an outcome"}.get(got)
        raise EnvelopeError(
            f"{what}: does not start with {magic!r}"
            + (f" (it is {other})" if other else f" (it starts with {got!r})")
        )
    if version != ENVELOPE_VERSION:
        raise EnvelopeError(
            f"{what}: version {version} is unknown (this reader knows {ENVELOPE_VERSION})"
        )
    if meta_len > max_meta:
        raise EnvelopeError(f"{what}: meta of {meta_len} bytes exceeds {max_meta}")
    if payload_len > max_payload:
        raise EnvelopeError(f"{what}: payload of {payload_len} bytes exceeds {max_payload}")
    end = ENVELOPE_PREFIX_SIZE + meta_len + payload_len
    if len(data) < end:
        raise EnvelopeError(f"{what}: truncated: {len(data)} bytes of {end}")
    if len(data) > end:
        raise EnvelopeError(f"{what}: {len(data) - end} bytes of trailing garbage")
    raw = data[ENVELOPE_PREFIX_SIZE : ENVELOPE_PREFIX_SIZE + meta_len]
    if magic == JOB_MAGIC and wire.count_values(raw) > MAX_JOB_META_VALUES:
        raise EnvelopeError(f"{what}: meta holds more than {MAX_JOB_META_VALUES} values")
    return _load_meta(raw, what), data[ENVELOPE_PREFIX_SIZE + meta_len :]


def _load_meta(raw: bytes, what: str) -> dict[str, Any]:
    return wire.strict_json(raw, f"{what}: meta", EnvelopeError, _INT_DIGITS, unique_keys=True)


# --- fields -----------------------------------------------------------------------------

_NONE = type(None)


def _fields(obj: dict[str, Any], types: dict[str, type | tuple[type, ...]], what: str) -> None:
    """Exactly the keys of ``types``, each holding a value of its type (bool is no int)."""
    missing = [k for k in types if k not in obj]
    if missing:
        raise EnvelopeError(f"{what}: missing field {missing[0]!r}")
    unknown = [k for k in obj if k not in types]
    if unknown:
        raise EnvelopeError(f"{what}: unknown field {str(unknown[0])[:100]!r}")
    for key, kind in types.items():
        value = obj[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            expected = " or ".join("null" if k is _NONE else k.__name__ for k in kinds)
            raise EnvelopeError(
                f"{what}: field {key!r} is {type(value).__name__}, expected {expected}"
            )


def _str_list(value: Any, what: str, key: str) -> None:
    if not all(isinstance(v, str) for v in value):
        raise EnvelopeError(f"{what}: field {key!r} holds something other than strings")


_CHILD_LIMITS = (
    "cpu_seconds",
    "memory_bytes",
    "output_bytes",
    "raw_output_bytes",
    "result_bytes",
    "text_bytes",
    "processes",
)  # JobLimits.for_child


def _check_job_header(header: Any) -> None:
    if not isinstance(header, dict):
        raise EnvelopeError(f"job: header is {type(header).__name__}, expected dict")
    kind = header.get("type")
    if kind == FrameType.JOB:
        what = "job header"
        _fields(
            header,
            {
                "type": str,
                "code": str,
                "filename": str,
                "entry_points": list,
                "tests": (list, _NONE),
                "variant": (int, _NONE),
                "limits": dict,
            },
            what,
        )
        _str_list(header["entry_points"], what, "entry_points")
        if header["tests"] is not None:
            _str_list(header["tests"], what, "tests")
    elif kind == FrameType.SELFCHECK:
        what = "selfcheck header"
        _fields(
            header,
            {"type": str, "secret_paths": list, "probe_port": int, "limits": dict},
            what,
        )
        _str_list(header["secret_paths"], what, "secret_paths")
        if not 0 <= header["probe_port"] < 65536:
            raise EnvelopeError(f"{what}: probe_port {header['probe_port']} is not a port")
    else:
        shown = str(kind)[:100] if isinstance(kind, str) else type(kind).__name__
        raise EnvelopeError(f"job: header type {shown!r} is not a job")
    limits = header["limits"]
    _fields(limits, dict.fromkeys(_CHILD_LIMITS, int), f"{what} limits")
    for key, value in limits.items():
        if not 0 <= value < 2**63:
            raise EnvelopeError(f"{what} limits: {key} {value} is out of range")


def _check_outcome_meta(meta: dict[str, Any]) -> None:
    what = "outcome"
    _fields(
        meta,
        {
            "malformed": (str, _NONE),
            "exit_code": (int, _NONE),
            "killed_for": (str, _NONE),
            "cpu_seconds": float,
            "maxrss_kb": int,
            "worker_lost": bool,
            "elapsed": float,
            "pids_limited": bool,
        },
        what,
    )
    if meta["malformed"] is not None and len(meta["malformed"]) > MAX_MESSAGE:
        raise EnvelopeError(f"{what}: malformed is longer than {MAX_MESSAGE} characters")
    if meta["exit_code"] is not None and not -(2**31) <= meta["exit_code"] < 2**31:
        raise EnvelopeError(f"{what}: exit_code {meta['exit_code']} is out of range")
    if meta["killed_for"] is not None and meta["killed_for"] not in KILLED_FOR:
        raise EnvelopeError(
            f"{what}: killed_for {meta['killed_for'][:100]!r} is not one of {KILLED_FOR}"
        )
    for key in ("cpu_seconds", "elapsed"):
        if not (math.isfinite(meta[key]) and meta[key] >= 0):
            raise EnvelopeError(f"{what}: {key} {meta[key]} is not a finite count of seconds")
    if not 0 <= meta["maxrss_kb"] < 2**63:
        raise EnvelopeError(f"{what}: maxrss_kb {meta['maxrss_kb']} is out of range")


# --- building jobs ----------------------------------------------------------------------


@lru_cache(maxsize=256)
def compiled_tests(source: str, examples_only: bool = False) -> bytes:
    """The tests module, compiled; with ``examples_only``, without the hidden tests."""
    tree = pyparse.parse(source, TESTS_FILENAME)
    if examples_only:
        tree.body = [node for node in tree.body if not _hidden_test(node)]
    return marshal.dumps(compile(tree, TESTS_FILENAME, "exec", dont_inherit=True))


def _hidden_test(node: ast.stmt) -> bool:
    """A function registered with ``@test(...)``: a hidden test (a visible example is an
    ``@example(...)``, which stays).

    A Run job carries only the examples: the hidden tests' code, names and inputs never
    reach a process that runs learner code outside a Submit."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for decorator in node.decorator_list:
        func = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if name == "test":
            return True
    return False


def job_for(
    exercise: Exercise,
    track: str,
    code: str,
    tests: list[str] | None,
    limits: JobLimits,
    examples_only: bool = False,
    variant: int | None = None,
) -> Job:
    """A job running ``tests`` (ids; None: all) of ``track`` against ``code``; with
    ``examples_only`` (Run), the job's tests module holds the examples alone. ``variant``
    seeds the tests that draw per learner (see graders.sandbox.testing.TestSpec.per_learner)."""
    tr = exercise.track(track)
    header = {
        "type": FrameType.JOB,
        "code": code,
        "filename": FILENAME,
        "entry_points": list(tr.entry_points),
        "tests": tests,
        "variant": variant,
        "limits": limits.for_child(),
    }
    return Job(header, compiled_tests(tr.tests, examples_only))
