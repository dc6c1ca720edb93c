"""The framed, typed, size-bounded wire format between the server and the sandbox.

Nothing that crosses it is pickled. A frame is::

    b"DRL1" | header length (u32 LE) | body length (u64 LE) | header (UTF-8 JSON) | body

The header is a JSON object whose ``"type"`` names the kind of frame: every kind is a
member of :class:`FrameType`, defined here and nowhere else. Arrays travel as raw bytes
in the body; the header names them by
``{"t": "ndarray", "dtype": ..., "shape": ..., "buf": [offset, length]}``.
Decoding checks every field, the nesting depth, the number of nodes and the sizes, so
a frame written by hostile code is at worst rejected with :class:`WireError`.

This module runs on both sides: inside the sandbox it only *encodes* learner values,
in the server it only *decodes* them. It imports numpy and nothing of the server.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

import numpy as np

MAGIC = b"DRL1"
_PREFIX = struct.Struct("<4sIQ")
PREFIX_SIZE = _PREFIX.size

MAX_HEADER = 8 * 1024 * 1024
MAX_DEPTH = 32
MAX_NODES = 200_000
MAX_STR = 1024 * 1024
MAX_DIMENSION = 2**40
MAX_INT_DIGITS = 80  # the encoder sends integers of at most 256 bits (78 digits) as numbers
MAX_CALLS = 10_000  # entries of one call record (graders.sandbox.testing.Calls)
MAX_JOB = 4 * 1024 * 1024  # body of a job frame (the compiled tests module)

# dtypes that may cross the wire; anything else is refused on both sides.
DTYPES = frozenset(
    [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)


def _wire_dtypes() -> MappingProxyType[np.dtype[Any], tuple[str, np.dtype[Any]]]:
    """Each dtype the wire carries, in either byte order: its name and little-endian form.
    ``dtype.name`` is computed in Python on every read (about 5 µs), once per array."""
    found: dict[np.dtype[Any], tuple[str, np.dtype[Any]]] = {}
    for name in DTYPES:
        little = np.dtype(name).newbyteorder("<")
        for order in ("<", ">", "="):
            found.setdefault(little.newbyteorder(order), (name, little))
    return MappingProxyType(found)


WIRE_DTYPES = _wire_dtypes()


def _by_name() -> MappingProxyType[str, tuple[np.dtype[Any], np.dtype[Any]]]:
    """Each wire dtype name: the dtype, and its little-endian form (the wire's)."""
    return MappingProxyType(
        {name: (np.dtype(name), np.dtype(name).newbyteorder("<")) for name in DTYPES}
    )


DTYPES_BY_NAME = _by_name()


class WireError(ValueError):
    """A frame or a value that breaks the format or its limits."""


class FrameType(StrEnum):
    """Every kind of frame, by the name its header's ``"type"`` carries.

    The one place these names are written: producers put a member in the header (JSON
    writes it as its plain string), consumers compare ``header.get("type")`` with a
    member (a member equals, and hashes as, its string). A name from a hostile child
    that is none of these is simply not equal to any of them.
    """

    # The server to a sandbox child, on the job pipe.
    JOB = "job"  # run tests against code (graders.grading.jobs.job_for)
    SELFCHECK = "selfcheck"  # the start-up canary; also the kind of the child's answer
    # The warm worker and the server, on the control socket.
    READY = "ready"  # worker: warmed up, with its library versions
    SPARE = "spare"  # worker: a spare child, its job and result pipes attached
    KILL = "kill"  # server: kill the named child
    # server, at the wall-clock limit: have the named child report where it is (STOPPED)
    REPORT = "report"
    EXIT = "exit"  # worker: the named child ended (status, resource use)
    TAINTED = "tainted"  # worker: its own state changed; it exits
    # A sandbox child to the server, on the result pipe.
    LOADED = "loaded"  # the tests module loaded: the tests' options
    CODE_LOADED = "code_loaded"  # the submission's module loaded
    TEST = "test"  # one test's observations
    DONE = "done"  # every test asked for ran
    LOAD_ERROR = "load_error"  # the submission's module raised while loading
    TAMPERED = "tampered"  # learner code changed what the tests rely on
    HARNESS_ERROR = "harness_error"  # the harness failed, not the learner
    # Where the job was when a time limit stopped it (runner.Job.on_time_limit): display
    # text only; the server decides from its own evidence whether a limit stopped it.
    STOPPED = "stopped"


JOB_FRAMES = frozenset({FrameType.JOB, FrameType.SELFCHECK})
CONTROL_FRAMES = frozenset(
    {
        FrameType.READY,
        FrameType.SPARE,
        FrameType.KILL,
        FrameType.REPORT,
        FrameType.EXIT,
        FrameType.TAINTED,
    }
)
RESULT_FRAMES = frozenset(
    {
        FrameType.LOADED,
        FrameType.CODE_LOADED,
        FrameType.TEST,
        FrameType.DONE,
        FrameType.LOAD_ERROR,
        FrameType.TAMPERED,
        FrameType.HARNESS_ERROR,
        FrameType.STOPPED,
        FrameType.SELFCHECK,
    }
)


# --- values as the server sees them -------------------------------------------------


@dataclass(frozen=True)
class ArrayObs:
    """A NumPy array (or NumPy scalar when ``scalar``) observed in the sandbox."""

    values: np.ndarray
    scalar: bool = False


@dataclass(frozen=True)
class TensorObs:
    """A torch tensor observed in the sandbox, with its autograd state."""

    values: np.ndarray
    dtype: str  # torch's own name, e.g. "float32" or "bfloat16"
    requires_grad: bool
    grad_fn: str | None
    is_leaf: bool


@dataclass(frozen=True)
class CallsObs:
    """The layers (by index) that ran during a phase, in call order."""

    phase: str
    layers: tuple[int, ...]
    more: int = 0  # calls past MAX_CALLS, counted but not recorded
    # A digest of each call's input (graders.sandbox.records.digest); () when not known.
    inputs: tuple[int, ...] = ()
    # A digest of the random state each call ran with (records.random_digest); () when
    # not known (plain functions, or a result stored before it was recorded).
    randoms: tuple[int, ...] = ()


@dataclass(frozen=True)
class ObjectObs:
    """A value of a type the format does not carry: only its type name and a repr."""

    type_name: str
    text: str


@dataclass(frozen=True)
class Frame:
    header: dict[str, Any]
    body: bytes = b""
    # The header's bytes as they were read (empty for a frame built in code), so that a
    # frame read from a stream is written on byte for byte (frame_bytes), and checked
    # again under the same limits wherever it goes next.
    raw_header: bytes = field(default=b"", repr=False, compare=False)


# --- frames --------------------------------------------------------------------------


def pack(header: dict[str, Any], body: bytes = b"") -> bytes:
    data = json.dumps(header, separators=(",", ":"), allow_nan=False).encode()
    if len(data) > MAX_HEADER:
        raise WireError(f"header of {len(data)} bytes exceeds {MAX_HEADER}")
    return _PREFIX.pack(MAGIC, len(data), len(body)) + data + body


def frame_bytes(frame: Frame) -> bytes:
    """The frame as it crosses the wire: its header's bytes as read when it was read from
    a stream (byte for byte, so a reader charges it exactly as the first one did), else
    its header packed."""
    if not frame.raw_header:
        return pack(frame.header, frame.body)
    raw, body = frame.raw_header, frame.body
    return _PREFIX.pack(MAGIC, len(raw), len(body)) + raw + body


def parse_prefix(prefix: bytes, max_body: int) -> tuple[int, int]:
    """Validate a frame prefix; return (header length, body length)."""
    magic, header_len, body_len = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise WireError("frame does not start with the magic bytes")
    if header_len > MAX_HEADER:
        raise WireError(f"header of {header_len} bytes exceeds {MAX_HEADER}")
    if body_len > max_body:
        raise WireError(f"body of {body_len} bytes exceeds {max_body}")
    return header_len, body_len


def strict_json(
    data: bytes,
    label: str = "header",
    error: type[WireError] = WireError,
    max_int_digits: int = MAX_INT_DIGITS,
    unique_keys: bool = False,
) -> dict[str, Any]:
    """A JSON object read strictly: no NaN or Infinity, no number past the float range
    (1e400 would read as an infinity, which no encoder writes as a number and nothing
    could be packed with again), no integer longer than ``max_int_digits``, and with
    ``unique_keys`` no key twice in one object. Every refusal is ``error``, worded
    "<label> holds ..."."""

    def constant(name: str) -> Any:
        raise error(f"{label} holds the JSON constant {name}")

    def integer(text: str) -> int:
        if len(text.lstrip("-")) > max_int_digits:
            raise error(f"{label} holds an integer of more than {max_int_digits} digits")
        return int(text)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise error(f"{label} holds a number out of the float range")
        return value

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            raise error(f"{label} repeats a key in one object")
        return obj

    try:
        value = json.loads(
            data.decode("utf-8"),
            object_pairs_hook=pairs if unique_keys else None,
            parse_constant=constant,
            parse_int=integer,
            parse_float=number,
        )
    except WireError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise error(f"{label} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise error(f"{label} is not a JSON object")
    return value


def unpack_header(data: bytes) -> dict[str, Any]:
    return strict_json(data)


# A JSON string, escapes included (an unrolled loop: linear, no backtracking).
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')


def count_values(data: bytes) -> int:
    """An upper bound on the JSON values ``json.loads(data)`` would build, counted without
    building them: every value but the first of a container follows a comma, and every
    container opens with a bracket. Strings are cut out first, so text does not count."""
    bare = _JSON_STRING.sub(b"", data)
    return bare.count(b",") + bare.count(b"[") + bare.count(b"{") + 1


@dataclass
class Budget:
    """What one job's result stream may hold, all frames together.

    The server decodes a sandbox's frames as they arrive; without a budget, a stream of
    small frames or headers full of tiny JSON values (``[[],[],...]``: 2 bytes become a
    56-byte list) would cost the server many times what it read. Every frame is charged
    before its header is parsed.
    """

    max_bytes: int  # prefixes, headers and bodies
    max_frames: int
    max_header: int  # one frame's header
    max_values: int  # JSON values in all headers (see count_values)
    used_bytes: int = 0
    frames: int = 0
    values: int = 0

    def charge(self, header: bytes, body_len: int) -> None:
        self.frames += 1
        if self.frames > self.max_frames:
            raise WireError(f"more than {self.max_frames} frames")
        if len(header) > self.max_header:
            raise WireError(f"a header of {len(header)} bytes exceeds {self.max_header}")
        self.used_bytes += PREFIX_SIZE + len(header) + body_len
        if self.used_bytes > self.max_bytes:
            raise WireError(f"more than {self.max_bytes} bytes")
        self.values += count_values(header)
        if self.values > self.max_values:
            raise WireError(f"more than {self.max_values} values in its headers")


def next_frame(
    data: bytes, max_body: int, budget: Budget | None = None, start: int = 0
) -> tuple[Frame | None, int]:
    """The first complete frame of ``data[start:]`` and its length, or (None, 0).

    With a ``budget``, the frame is charged to it before its header is decoded."""
    if len(data) - start < PREFIX_SIZE:
        return None, 0
    header_len, body_len = parse_prefix(data[start : start + PREFIX_SIZE], max_body)
    header_start = start + PREFIX_SIZE
    end = header_start + header_len + body_len
    if len(data) < end:
        return None, 0
    raw = data[header_start : header_start + header_len]
    if budget is not None:
        budget.charge(raw, body_len)
    header = unpack_header(raw)
    return Frame(header, data[header_start + header_len : end], raw), end - start


def split_frames(
    data: bytes, max_body: int, budget: Budget | None = None
) -> tuple[list[Frame], bytes]:
    """Cut complete frames off the front of ``data``; return them and the rest."""
    frames: list[Frame] = []
    while True:
        frame, used = next_frame(data, max_body, budget)
        if frame is None:
            return frames, data
        frames.append(frame)
        data = data[used:]


def read_frame(read: Any, max_body: int) -> Frame | None:
    """Read one frame with ``read(n) -> bytes`` (a file's read). None at a clean EOF."""
    prefix = _read_exact(read, PREFIX_SIZE, allow_eof=True)
    if prefix is None:
        return None
    header_len, body_len = parse_prefix(prefix, max_body)
    raw = _read_exact(read, header_len) or b""
    header = unpack_header(raw)
    body = _read_exact(read, body_len) or b"" if body_len else b""
    return Frame(header, body, raw)


def _read_exact(read: Any, n: int, allow_eof: bool = False) -> bytes | None:
    chunks = []
    remaining = n
    while remaining:
        chunk = read(remaining)
        if not chunk:
            if allow_eof and remaining == n:
                return None
            raise WireError(f"stream ended {remaining} bytes before the end of a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


# --- values: decoding (server side) --------------------------------------------------


@dataclass
class _Decoder:
    body: bytes
    nodes: int = 0
    used: list[tuple[int, int]] = field(default_factory=list)

    def value(self, node: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise WireError(f"more than {MAX_NODES} values")
        if depth > MAX_DEPTH:
            raise WireError(f"nested deeper than {MAX_DEPTH} levels")
        if node is None or isinstance(node, bool | int | float):
            return node
        if isinstance(node, str):
            if len(node) > MAX_STR:
                raise WireError("string too long")
            return node
        if not isinstance(node, dict):
            raise WireError(f"unexpected JSON {type(node).__name__} as a value")
        tag = node.get("t")
        if tag == "float":  # non-finite floats travel as strings
            return _float(node.get("v"))
        if tag in ("list", "tuple"):
            items = [self.value(v, depth + 1) for v in _list(node.get("v"))]
            return items if tag == "list" else tuple(items)
        if tag == "dict":
            keys = [self.value(k, depth + 1) for k in _list(node.get("k"))]
            values = [self.value(v, depth + 1) for v in _list(node.get("v"))]
            if len(keys) != len(values):
                raise WireError("dict with unequal key and value counts")
            try:
                result = dict(zip(keys, values, strict=True))
            except TypeError:
                raise WireError("dict key is not hashable") from None
            if len(result) != len(keys):
                raise WireError("dict with duplicate keys")
            return result
        if tag == "ndarray":
            return ArrayObs(self.array(node), scalar=bool(node.get("scalar", False)))
        if tag == "tensor":
            grad_fn = node.get("grad_fn")
            if grad_fn is not None and not isinstance(grad_fn, str):
                raise WireError("grad_fn is not a string")
            return TensorObs(
                values=self.array(node),
                dtype=_str(node.get("torch_dtype", node.get("dtype"))),
                requires_grad=_bool(node.get("requires_grad")),
                grad_fn=grad_fn,
                is_leaf=_bool(node.get("is_leaf")),
            )
        if tag == "calls":
            layers = _list(node.get("v"))
            if len(layers) > MAX_CALLS:
                raise WireError(f"a call record of more than {MAX_CALLS} entries")
            if not all(type(i) is int and 0 <= i < 2**31 for i in layers):
                raise WireError("calls hold something other than a layer index")
            inputs = _digests(node.get("inputs", []), len(layers), "inputs")
            randoms = _digests(node.get("randoms", []), len(layers), "random states")
            more = node.get("more", 0)
            if type(more) is not int or not 0 <= more < 2**62:
                raise WireError("bad count of unrecorded calls")
            return CallsObs(
                _str(node.get("phase"))[:200], tuple(layers), more, tuple(inputs), tuple(randoms)
            )
        if tag == "object":
            return ObjectObs(_str(node.get("type")), _str(node.get("repr")))
        raise WireError(f"unknown value tag {tag!r}")

    def array(self, node: dict[str, Any]) -> np.ndarray:
        dtype = node.get("dtype")
        if dtype not in DTYPES:
            raise WireError(f"dtype {dtype!r} is not allowed")
        shape = _list(node.get("shape"))
        if len(shape) > 32 or not all(type(d) is int and 0 <= d <= MAX_DIMENSION for d in shape):
            raise WireError("bad array shape")
        buf = _list(node.get("buf"))
        if len(buf) != 2 or not all(isinstance(b, int) and b >= 0 for b in buf):
            raise WireError("bad buffer reference")
        offset, length = buf
        if offset + length > len(self.body):
            raise WireError("buffer reference past the end of the body")
        dt, little = DTYPES_BY_NAME[dtype]
        if math.prod(shape) * dt.itemsize != length:
            raise WireError("buffer length does not match shape and dtype")
        data = self.body[offset : offset + length]
        try:
            return np.frombuffer(data, dtype=little).astype(dt).reshape(shape)
        except ValueError as exc:
            raise WireError(f"bad array: {exc}") from None


def decode_value(node: Any, body: bytes) -> Any:
    """Turn an encoded value back into Python data; raise WireError on anything odd."""
    try:
        return _Decoder(body).value(node)
    except WireError:
        raise
    except (TypeError, ValueError, OverflowError, RecursionError, MemoryError) as exc:
        # Belt and braces: whatever slipped past the checks is still a rejected frame.
        raise WireError(f"malformed value: {type(exc).__name__}") from None


def _digests(v: Any, count: int, what: str) -> list[int]:
    """A call record's 32-bit digests: none, or one per recorded call."""
    digests = _list(v)
    if len(digests) not in (0, count) or not all(
        type(i) is int and 0 <= i < 2**32 for i in digests
    ):
        raise WireError(f"bad digests of the layers' {what}")
    return digests


def _list(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise WireError("expected a list")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str) or len(v) > MAX_STR:
        raise WireError("expected a string")
    return v


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise WireError("expected a boolean")
    return v


def _float(v: Any) -> float:
    if v not in ("nan", "inf", "-inf"):
        raise WireError("bad float")
    return float(v)
