"""Fuzzing what a sandbox can send: a verdict or a clean error, never an exception.

A child that runs learner code can write any bytes to its result pipe. Whatever they are,
the server's frame reader either returns frames or raises ``WireError``, and turning the
frames into a result always gives a ``GradeResult`` that serialises to JSON, with every
number finite and every message bounded.
"""

from __future__ import annotations

import contextlib
import json
import math
import struct
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.grading import verdicts
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome
from graders.grading.references import Reference, TestOptions
from graders.grading.results import CLIPPED_MARKER, MESSAGE_LIMIT, OUTPUT_LIMIT, TRUNCATION_MARKER
from graders.sandbox import wire
from graders.sandbox.encode import Encoder

LIMITS = JobLimits(2, 3, 512 * 2**20, 65536, 2**20, 64)
NAMES = ["a", "b"]


def reference() -> Reference:
    tests = [
        TestOptions(id=n, name=n, example=False, rtol=1e-5, atol=1e-8, exact_dtype=False, reveal=r)
        for n, r in zip(NAMES, ["summary", "full"], strict=True)
    ]
    encoded = {}
    for name in NAMES:
        encoder = Encoder(2**20)
        node = encoder.value({"result": np.arange(3.0), "n": 1, "s": "x"})
        encoded[name] = (node, encoder.body)
    return Reference("fuzz", tests, encoded)


CTX = verdicts.Context("fuzz", "numpy", "submit", NAMES, reference(), LIMITS)

# JSON as a hostile child may write it: NaN, infinities, huge integers, deep nesting.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**100), max_value=10**100),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=50),
    st.sampled_from(["a", "b", "ok", "raised", "missing", "unencodable", "test", "calls"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.sampled_from(["t", "v", "k", "dtype", "shape", "buf", "x"]), inner),
    ),
    max_leaves=30,
)
obs_nodes = st.one_of(
    values,
    st.fixed_dictionaries(
        {"t": st.just("dict"), "k": st.lists(values, max_size=3), "v": st.lists(values, max_size=3)}
    ),
    st.fixed_dictionaries(
        {
            "t": st.sampled_from(["ndarray", "tensor"]),
            "dtype": st.sampled_from(["float64", "int8", "bool", "object", "x"]),
            "shape": st.lists(st.integers(-2, 2**41), max_size=3),
            "buf": st.lists(st.integers(-1, 64), max_size=3),
        }
    ),
    st.fixed_dictionaries(
        {
            "t": st.just("calls"),
            "phase": values,
            "v": st.lists(values, max_size=5),
            "inputs": st.lists(values, max_size=5),
            "more": values,
        }
    ),
)
headers = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "test",
                "loaded",
                "code_loaded",
                "done",
                "load_error",
                "harness_error",
                "tampered",
                "x",
            ]
        ),
        "id": st.one_of(st.sampled_from(NAMES), values),
        "status": st.one_of(st.sampled_from(["ok", "raised", "missing", "unencodable"]), values),
        "obs": obs_nodes,
        "duration_ms": values,
        "output": values,
        "output_truncated": values,
        "output_bytes": st.one_of(values, st.integers(min_value=-1, max_value=2**64)),
        "output_bytes_at_least": values,
        "error": st.one_of(
            values,
            st.fixed_dictionaries(
                {"type": values, "message": values, "line": values, "col": values}
            ),
        ),
        "message": values,
        "what": values,
        "last_call": values,
    },
    optional={},
)


def raw_frame(header: dict[str, Any], body: bytes) -> bytes:
    data = json.dumps(header, allow_nan=True).encode()
    return struct.pack("<4sIQ", wire.MAGIC, len(data), len(body)) + data + body


def read_all(data: bytes) -> list[wire.Frame]:
    """As the pool reads a result stream: frames charged to a budget, then decoded."""
    budget = wire.Budget(2**20, len(NAMES) + 4, LIMITS.result_header_bytes, 10_000)
    return wire.split_frames(data, LIMITS.result_bytes, budget)[0]


def check_result(frames: list[wire.Frame]) -> None:
    result = verdicts.build(CTX, JobOutcome(frames=frames, exit_code=0))
    text = result.model_dump_json()  # what the service stores and answers
    assert "NaN" not in text and "Infinity" not in text
    assert math.isfinite(result.duration_ms)
    for test in result.tests:
        assert math.isfinite(test.duration_ms)
        assert len(test.message) <= MESSAGE_LIMIT + len(CLIPPED_MARKER)
        assert len(test.output) <= OUTPUT_LIMIT + len(TRUNCATION_MARKER)
        # A size the page can show: a whole number of bytes a JavaScript number holds.
        assert test.output_bytes is None or 0 <= test.output_bytes <= 2**53 - 1
        assert test.output_bytes is not None or not test.output_bytes_at_least
    assert len(result.message) <= MESSAGE_LIMIT + len(CLIPPED_MARKER)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(headers, st.binary(max_size=64)), max_size=6))
def test_any_frames_give_a_verdict_or_a_clean_error(frames: list[tuple[dict[str, Any], bytes]]):
    data = b"".join(raw_frame(h, b) for h, b in frames)
    try:
        decoded = read_all(data)
    except wire.WireError:
        return  # the whole stream is refused: an error verdict, see verdicts.build
    check_result(decoded)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_are_frames_or_a_wire_error(data: bytes):
    for stream in (data, wire.MAGIC + data):
        with contextlib.suppress(wire.WireError):
            check_result(read_all(stream))


@settings(max_examples=150, deadline=None)
@given(obs_nodes, st.binary(max_size=64))
def test_any_observation_decodes_or_is_refused(node: Any, body: bytes):
    with contextlib.suppress(wire.WireError):
        wire.decode_value(node, body)


def test_the_budget_refuses_a_header_of_tiny_values_before_decoding_it():
    header = b'{"x":[' + b"[]," * 400_000 + b"[]]}"
    budget = wire.Budget(2**26, 10, 2**23, 100_000)
    data = struct.pack("<4sIQ", wire.MAGIC, len(header), 0) + header
    try:
        wire.next_frame(data, 0, budget)
    except wire.WireError as exc:
        assert "values in its headers" in str(exc)
    else:
        raise AssertionError("a header of 400,000 values passed a budget of 100,000")


def test_count_values_ignores_what_is_inside_strings():
    assert wire.count_values(b'{"a": "[[[,,,{{{", "b": [1, 2]}') == 5
    assert wire.count_values(b'["\\"[,", 1]') == 3


def test_the_harness_running_out_of_memory_is_the_learners_memory_limit():
    # Threads the learner started can take the address space the harness needs to report;
    # the run failed on the memory limit, it is not an internal error (CI saw this once).
    loaded = wire.Frame({"type": "code_loaded"}, b"")
    test_a = wire.Frame({"type": "test", "id": "a", "status": "raised"}, b"")
    out = wire.Frame({"type": "harness_error", "message": "MemoryError()"}, b"")
    result = verdicts.build(CTX, JobOutcome(frames=[loaded, test_a, out], exit_code=70))
    assert result.status == "fail", result.message
    assert [t.message for t in result.tests][1] == "memory limit of 512 MiB exceeded"
    # Any other harness failure stays an internal error.
    other = wire.Frame({"type": "harness_error", "message": "KeyError('x')"}, b"")
    result = verdicts.build(CTX, JobOutcome(frames=[other], exit_code=70))
    assert result.status == "error" and "internal grading error" in result.message
