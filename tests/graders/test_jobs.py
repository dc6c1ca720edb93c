"""Jobs and outcomes as bytes, and the frame kinds named once.

A job and its outcome cross machines (an API node, a remote grading worker) as bytes:
``to_bytes`` and ``from_bytes`` must round-trip exactly, and ``from_bytes`` must refuse
anything else with an ``EnvelopeError`` that says what is wrong, since the bytes come
from another machine and an outcome's frames from a sandbox.
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graders.grading.pool
from graders.grading.catalog import load_catalog
from graders.grading.isolation import JobLimits
from graders.grading.jobs import (
    ENVELOPE_VERSION,
    JOB_MAGIC,
    MAX_JOB_META,
    MAX_OUTCOME_META,
    OUTCOME_MAGIC,
    EnvelopeError,
    Job,
    JobOutcome,
    job_for,
    result_budget,
)
from graders.sandbox import prewarm, runner, wire
from graders.sandbox.encode import Encoder
from graders.sandbox.wire import CONTROL_FRAMES, JOB_FRAMES, RESULT_FRAMES, FrameType
from graders.settings import ROOT

HERE = Path(__file__).parent
LIMITS = JobLimits(2, 3, 512 * 2**20, 65536, 2**20, 64)
EXERCISE = load_catalog(HERE / "exercises").get("double")
SOLUTION = EXERCISE.track("numpy").solution
PREFIX = struct.Struct("<4sHIQ")


def double_job(tests: list[str] | None = None, examples_only: bool = False) -> Job:
    return job_for(EXERCISE, "numpy", SOLUTION, tests, LIMITS, examples_only)


def selfcheck_job() -> Job:
    return Job(
        {
            "type": FrameType.SELFCHECK,
            "secret_paths": ["/srv/exercises", "/srv/var/drill.db"],
            "probe_port": 40123,
            "limits": LIMITS.for_child(),
        }
    )


def run_in_process(job: Job) -> list[wire.Frame]:
    """Run the job in the real harness, here, and read its result stream as the pool does:
    frame by frame, charged to the job's budget."""
    sink = os.memfd_create("frames")
    try:
        with prewarm.restored_process():
            runner.Job(job.header, sink, job.body).run()
        data = os.pread(sink, LIMITS.result_bytes + 1, 0)
    finally:
        os.close(sink)
    frames, rest = wire.split_frames(data, LIMITS.result_bytes, result_budget(job, LIMITS))
    assert rest == b""
    return frames


@pytest.fixture(scope="module")
def real_outcome() -> tuple[Job, JobOutcome]:
    job = double_job()
    outcome = JobOutcome(
        frames=run_in_process(job),
        exit_code=0,
        cpu_seconds=0.0625,
        maxrss_kb=187_432,
        elapsed=0.013_457_812_5,
    )
    return job, outcome


def envelope(magic: bytes, meta: Any, payload: bytes = b"", version: int = 1) -> bytes:
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    return PREFIX.pack(magic, version, len(raw), len(payload)) + raw + payload


def outcome_meta(**changes: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "malformed": None,
        "exit_code": 0,
        "killed_for": None,
        "cpu_seconds": 0.5,
        "maxrss_kb": 1024,
        "worker_lost": False,
        "elapsed": 0.25,
        "pids_limited": False,
    }
    meta.update(changes)
    return meta


def read_outcome(data: bytes, job: Job | None = None) -> JobOutcome:
    return JobOutcome.from_bytes(data, job or double_job(), LIMITS)


# --- round trips ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "job",
    [
        double_job(),
        double_job(["doubles a matrix"]),
        double_job([], examples_only=True),
        selfcheck_job(),
    ],
    ids=["all tests", "one test", "examples only", "selfcheck"],
)
def test_a_job_round_trips_exactly(job: Job) -> None:
    data = job.to_bytes()
    assert data[:4] == JOB_MAGIC
    back = Job.from_bytes(data)
    assert back == job
    assert back.body == job.body
    assert json.dumps(back.header) == json.dumps(job.header)  # same keys, same order
    assert back.to_bytes() == data


def test_a_job_read_back_runs_as_the_original(real_outcome: tuple[Job, JobOutcome]) -> None:
    job, outcome = real_outcome
    again = run_in_process(Job.from_bytes(job.to_bytes()))
    assert [f.header["type"] for f in again] == [f.header["type"] for f in outcome.frames]


def test_a_real_outcome_round_trips_exactly(real_outcome: tuple[Job, JobOutcome]) -> None:
    job, outcome = real_outcome
    kinds = [f.header["type"] for f in outcome.frames]
    assert kinds[:2] == [FrameType.LOADED, FrameType.CODE_LOADED]
    assert kinds[-1] == FrameType.DONE
    assert any(f.body for f in outcome.frames)  # arrays travel as raw bytes in bodies
    data = outcome.to_bytes()
    assert data[:4] == OUTCOME_MAGIC
    back = JobOutcome.from_bytes(data, job, LIMITS)
    assert back == outcome
    assert [f.body for f in back.frames] == [f.body for f in outcome.frames]
    assert back.to_bytes() == data
    for mine, theirs in zip(outcome.frames, back.frames, strict=True):
        if "obs" in mine.header:
            a = wire.decode_value(mine.header["obs"], mine.body)
            b = wire.decode_value(theirs.header["obs"], theirs.body)
            assert a.keys() == b.keys()
            for key in a:
                if isinstance(a[key], wire.ArrayObs):
                    assert a[key].values.dtype == b[key].values.dtype
                    assert a[key].values.tobytes() == b[key].values.tobytes()


def test_a_torch_outcome_round_trips_exactly() -> None:
    header, body = prewarm.prepare({"output_bytes": 4096, "result_bytes": LIMITS.result_bytes})
    job = Job(header, body)
    outcome = JobOutcome(frames=run_in_process(job), exit_code=-9, killed_for="wall")
    assert any("tensor" in json.dumps(f.header) for f in outcome.frames)
    back = JobOutcome.from_bytes(outcome.to_bytes(), job, LIMITS)
    assert back == outcome
    assert back.to_bytes() == outcome.to_bytes()


def test_every_field_of_an_outcome_round_trips() -> None:
    frames, _ = wire.split_frames(wire.pack({"type": FrameType.HARNESS_ERROR, "x": 1}), 100)
    outcome = JobOutcome(
        frames=frames,
        malformed="frame does not start with the magic bytes",
        exit_code=-9,
        killed_for="result_size",
        cpu_seconds=1.0000000000000002,
        maxrss_kb=2**40,
        worker_lost=True,
        elapsed=5e-324,
        pids_limited=True,
    )
    assert read_outcome(outcome.to_bytes()) == outcome
    killed = JobOutcome(killed_for="memory")  # at the job cgroup's memory limit
    assert read_outcome(killed.to_bytes()) == killed
    assert read_outcome(JobOutcome().to_bytes()) == JobOutcome()


def test_a_forged_header_is_carried_byte_for_byte_and_charged_as_the_pool_did() -> None:
    # What a hostile child may write and the pool accepts: whitespace, raw UTF-8 where
    # the encoder would escape, exponents the encoder would spell out, a repeated key.
    # Packed again, its header would grow; carried as read, it is charged the same.
    raw = '{"type":"test","name":"\u00e9\u00e9","d":1e15,"d":2E15}'.encode()
    stream = wire.MAGIC + struct.pack("<IQ", len(raw), 3) + raw + b"abc"
    assert len(wire.pack(json.loads(raw))) > wire.PREFIX_SIZE + len(raw)
    job = double_job(["doubles a matrix"])
    budget = result_budget(job, LIMITS)
    frames, _ = wire.split_frames(stream, LIMITS.result_bytes, budget)
    outcome = JobOutcome(frames=frames)
    data = outcome.to_bytes()
    assert stream in data
    back = JobOutcome.from_bytes(data, job, LIMITS)
    assert back == outcome
    assert back.frames[0].raw_header == raw
    assert back.frames[0].header == {"type": "test", "name": "éé", "d": 2e15}


def test_a_frame_built_in_code_is_packed() -> None:
    outcome = JobOutcome(frames=[wire.Frame({"type": FrameType.DONE, "imported": []}, b"xyz")])
    back = read_outcome(outcome.to_bytes())
    assert back == outcome
    assert back.frames[0].raw_header == b'{"type":"done","imported":[]}'


def test_the_pool_still_exports_the_outcome() -> None:
    # graders/grading/local.py (and grading.py, bench/) import JobOutcome from graders.grading.pool.
    assert graders.grading.pool.JobOutcome is JobOutcome
    assert result_budget(double_job(), LIMITS).max_values == graders.grading.pool.MAX_RESULT_VALUES


# --- what from_bytes refuses ----------------------------------------------------------


def test_wrong_magic_is_refused_and_named() -> None:
    job, outcome = double_job().to_bytes(), JobOutcome().to_bytes()
    with pytest.raises(EnvelopeError, match="it is an outcome"):
        Job.from_bytes(outcome)
    with pytest.raises(EnvelopeError, match="it is a job"):
        read_outcome(job)
    with pytest.raises(EnvelopeError, match="does not start with b'DRJB'"):
        Job.from_bytes(wire.pack({"type": "job"}))


def test_an_unknown_version_is_refused() -> None:
    data = bytearray(JobOutcome().to_bytes())
    data[4:6] = struct.pack("<H", ENVELOPE_VERSION + 1)
    with pytest.raises(EnvelopeError, match="version 2 is unknown"):
        read_outcome(bytes(data))


def test_every_truncation_and_any_trailing_byte_is_refused() -> None:
    frames, _ = wire.split_frames(wire.pack({"type": "done"}, b"body"), 100)
    for data, read in (
        (double_job().to_bytes(), Job.from_bytes),
        (JobOutcome(frames=frames).to_bytes(), read_outcome),
    ):
        for cut in range(len(data)):
            with pytest.raises(EnvelopeError, match="truncated"):
                read(data[:cut])
        with pytest.raises(EnvelopeError, match="1 bytes of trailing garbage"):
            read(data + b"\0")


def test_oversized_lengths_are_refused_before_reading() -> None:
    with pytest.raises(EnvelopeError, match=r"meta of .* exceeds"):
        Job.from_bytes(PREFIX.pack(JOB_MAGIC, 1, MAX_JOB_META + 1, 0))
    with pytest.raises(EnvelopeError, match=r"payload of .* exceeds"):
        Job.from_bytes(PREFIX.pack(JOB_MAGIC, 1, 2, wire.MAX_JOB + 1) + b"{}")
    with pytest.raises(EnvelopeError, match=r"meta of .* exceeds"):
        read_outcome(PREFIX.pack(OUTCOME_MAGIC, 1, MAX_OUTCOME_META + 1, 0))
    with pytest.raises(EnvelopeError, match=r"payload of .* exceeds"):
        read_outcome(PREFIX.pack(OUTCOME_MAGIC, 1, 2, LIMITS.result_bytes + 1) + b"{}")


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (b"\xff", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b"[]", "not a JSON object"),
        (b'{"exit_code": NaN}', "JSON constant NaN"),
        (b'{"elapsed": 1e400}', "out of the float range"),
        (b'{"maxrss_kb": ' + b"9" * 21 + b"}", "more than 20 digits"),
        (b'{"exit_code": 0, "exit_code": 0}', "repeats a key"),
        (b"[" * 30_000 + b"]" * 30_000, "not valid JSON"),
    ],
    ids=["utf-8", "json", "object", "nan", "inf", "huge int", "repeated key", "deep"],
)
def test_meta_that_is_not_strict_json_is_refused(meta: bytes, message: str) -> None:
    with pytest.raises(EnvelopeError, match=message):
        read_outcome(envelope(OUTCOME_MAGIC, meta))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"extra": 1}, "unknown field 'extra'"),
        ({"malformed": 1}, "'malformed' is int, expected str or null"),
        ({"malformed": "x" * 2001}, "longer than 2000"),
        ({"exit_code": 1.0}, "'exit_code' is float, expected int or null"),
        ({"exit_code": True}, "'exit_code' is bool"),
        ({"exit_code": 2**40}, "out of range"),
        ({"killed_for": "boredom"}, "not one of"),
        ({"killed_for": ["wall"]}, "'killed_for' is list"),
        ({"cpu_seconds": 1}, "'cpu_seconds' is int, expected float"),
        ({"cpu_seconds": -0.5}, "not a finite count of seconds"),
        ({"elapsed": None}, "'elapsed' is NoneType, expected float"),
        ({"maxrss_kb": -1}, "out of range"),
        ({"maxrss_kb": 1.5}, "'maxrss_kb' is float"),
        ({"worker_lost": 0}, "'worker_lost' is int, expected bool"),
        ({"pids_limited": 1}, "'pids_limited' is int, expected bool"),
    ],
)
def test_outcome_fields_of_the_wrong_type_or_range_are_refused(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(EnvelopeError, match=message):
        read_outcome(envelope(OUTCOME_MAGIC, outcome_meta(**changes)))
    # ... and to_bytes refuses to write what from_bytes would refuse.
    fields = {k: v for k, v in changes.items() if k != "extra"}
    if fields:
        with pytest.raises(EnvelopeError, match=message):
            JobOutcome(**fields).to_bytes()


def test_missing_outcome_fields_are_refused() -> None:
    for key in outcome_meta():
        meta = outcome_meta()
        del meta[key]
        with pytest.raises(EnvelopeError, match=f"missing field '{key}'"):
            read_outcome(envelope(OUTCOME_MAGIC, meta))


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"garbage that is no frame at all", "frame 0: frame does not start with"),
        (wire.pack({"type": "done"})[:-1], "end inside a frame"),
        (wire.pack({"type": "done"}) + b"DRL1", "end inside a frame"),
        (wire.pack({"type": "done"}) + b"XXXX" + bytes(12), "frame 1: frame does not start"),
        (wire.MAGIC + struct.pack("<IQ", 3, 0) + b'"x"', "not a JSON object"),
        (wire.MAGIC + struct.pack("<IQ", 11, 0) + b'{"a":1e400}', "out of the float range"),
    ],
)
def test_payloads_that_are_not_frames_are_refused(payload: bytes, message: str) -> None:
    with pytest.raises(EnvelopeError, match=message):
        read_outcome(envelope(OUTCOME_MAGIC, outcome_meta(), payload))


def test_frames_are_read_under_the_budget_the_pool_applied_to_the_job() -> None:
    one_test = double_job(["doubles a matrix"])
    frames = wire.pack({"type": "code_loaded"}) * 5  # 1 test + 4 others at most
    assert len(read_outcome(envelope(OUTCOME_MAGIC, outcome_meta(), frames), one_test).frames)
    with pytest.raises(EnvelopeError, match="more than 5 frames"):
        read_outcome(envelope(OUTCOME_MAGIC, outcome_meta(), frames * 2), one_test)
    tall = JobLimits(2, 3, 2**29, 1024, 64 * 2**20, 64)  # 64 MiB of results, 5 MiB headers
    values = wire.pack({"type": "test", "v": [[]] * 150_000})  # 300,000 values
    assert JobOutcome.from_bytes(envelope(OUTCOME_MAGIC, outcome_meta(), values), one_test, tall)
    with pytest.raises(EnvelopeError, match="frame 1: more than 500000 values"):
        JobOutcome.from_bytes(
            envelope(OUTCOME_MAGIC, outcome_meta(), values + values), one_test, tall
        )
    header = wire.pack({"type": "test", "output": "x" * (tall.result_header_bytes + 1)})
    with pytest.raises(EnvelopeError, match=r"frame 0: a header of .* bytes exceeds"):
        JobOutcome.from_bytes(envelope(OUTCOME_MAGIC, outcome_meta(), header), one_test, tall)


_DROP = object()


def _job_header(**changes: Any) -> dict[str, Any]:
    header = dict(double_job().header)
    header.update(changes)
    return {k: v for k, v in header.items() if v is not _DROP}


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ([], "header'? is list, expected dict"),
        ({"type": "kill", "pid": 1}, "header type 'kill' is not a job"),
        ({"type": 1}, "header type 'int' is not a job"),
        (_job_header(code=1), "'code' is int, expected str"),
        (_job_header(code=_DROP), "missing field 'code'"),
        (_job_header(extra=1), "unknown field 'extra'"),
        (_job_header(entry_points="double"), "'entry_points' is str, expected list"),
        (_job_header(entry_points=["double", 1]), "'entry_points' holds something other"),
        (_job_header(tests="all"), "'tests' is str, expected list or null"),
        (_job_header(tests=[None]), "'tests' holds something other"),
        (_job_header(limits={}), "missing field 'cpu_seconds'"),
        (_job_header(limits={**LIMITS.for_child(), "cpu_seconds": 1.5}), "is float"),
        (_job_header(limits={**LIMITS.for_child(), "processes": -1}), "out of range"),
        (_job_header(limits={**LIMITS.for_child(), "x": 1}), "unknown field 'x'"),
        ({**selfcheck_job().header, "probe_port": 70000}, "not a port"),
        ({**selfcheck_job().header, "secret_paths": [1]}, "holds something other"),
    ],
)
def test_job_headers_of_the_wrong_shape_are_refused(header: Any, message: str) -> None:
    with pytest.raises(EnvelopeError, match=message):
        Job.from_bytes(envelope(JOB_MAGIC, {"header": header}))
    with pytest.raises(EnvelopeError, match=message):
        Job(header).to_bytes()


def test_job_envelopes_of_the_wrong_shape_are_refused() -> None:
    header = double_job().header
    with pytest.raises(EnvelopeError, match="missing field 'header'"):
        Job.from_bytes(envelope(JOB_MAGIC, {}))
    with pytest.raises(EnvelopeError, match="unknown field 'body'"):
        Job.from_bytes(envelope(JOB_MAGIC, {"header": header, "body": ""}))
    with pytest.raises(EnvelopeError, match="more than 100000 values"):
        Job.from_bytes(envelope(JOB_MAGIC, {"header": header, "x": [0] * 100_001}))
    with pytest.raises(EnvelopeError, match="'entry_points' is tuple"):
        Job({**header, "entry_points": ("double",)}).to_bytes()
    with pytest.raises(EnvelopeError, match=r"body of .* exceeds"):
        Job(header, b"\0" * (wire.MAX_JOB + 1)).to_bytes()


def test_a_job_rejects_what_is_not_bytes() -> None:
    with pytest.raises(TypeError, match="expected bytes"):
        Job.from_bytes("DRJB")  # type: ignore[arg-type]


# --- properties: nothing but EnvelopeError ---------------------------------------------


def _read_any(data: bytes) -> None:
    for read in (Job.from_bytes, read_outcome):
        with contextlib.suppress(EnvelopeError):
            read(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_raise_nothing_but_envelope_error(data: bytes) -> None:
    _read_any(data)


@settings(max_examples=300, deadline=None)
@given(
    magic=st.sampled_from([JOB_MAGIC, OUTCOME_MAGIC]),
    version=st.sampled_from([1, 1, 1, 0, 2]),
    meta=st.one_of(
        st.binary(max_size=80),
        st.recursive(
            st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
            lambda inner: st.one_of(
                st.lists(inner, max_size=4),
                st.dictionaries(
                    st.sampled_from([*outcome_meta(), "header", "type", "limits", "x"]), inner
                ),
            ),
            max_leaves=12,
        ).map(lambda v: json.dumps(v).encode()),
        st.builds(
            lambda changes: json.dumps(outcome_meta(**changes)).encode(),
            st.dictionaries(
                st.sampled_from(list(outcome_meta())),
                st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text()),
                max_size=2,
            ),
        ),
    ),
    payload=st.one_of(
        st.binary(max_size=80),
        st.lists(st.binary(max_size=30), max_size=3).map(
            lambda parts: b"".join(wire.MAGIC + struct.pack("<IQ", len(p), 0) + p for p in parts)
        ),
    ),
)
def test_well_framed_random_envelopes_raise_nothing_but_envelope_error(
    magic: bytes, version: int, meta: bytes, payload: bytes
) -> None:
    _read_any(envelope(magic, meta, payload, version))


SAMPLE_JOB = double_job(["doubles a matrix"]).to_bytes()
SAMPLE_OUTCOME = JobOutcome(
    frames=wire.split_frames(
        wire.pack({"type": "test", "name": "a"}, b"\x00\x01") + wire.pack({"type": "done"}), 100
    )[0],
    exit_code=0,
    cpu_seconds=0.5,
).to_bytes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from([SAMPLE_JOB, SAMPLE_OUTCOME]),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["flip", "insert", "delete"]),
            st.integers(0, 10**6),
            st.binary(min_size=1, max_size=2),
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_mutated_envelopes_read_back_or_raise_envelope_error(
    which: bytes, edits: list[tuple[str, int, bytes]]
) -> None:
    data = bytearray(which)
    for op, at, byte in edits:
        i = at % (len(data) + 1)
        if op == "insert":
            data[i:i] = byte
        elif data and i < len(data):
            if op == "flip":
                data[i] ^= byte[0] or 1
            else:
                del data[i]
    data_bytes = bytes(data)
    for read, write in (
        (Job.from_bytes, Job.to_bytes),
        (read_outcome, JobOutcome.to_bytes),
    ):
        try:
            value = read(data_bytes)
        except EnvelopeError:
            continue
        # Whatever is accepted is something to_bytes can write, and reads back the same.
        assert read(write(value)) == value  # type: ignore[arg-type]


# --- the frame kinds, named once --------------------------------------------------------

FRAME_NAMES = {member.value for member in FrameType}


def test_frame_types_are_grouped_and_distinct() -> None:
    assert len(FRAME_NAMES) == len(FrameType)
    assert set(FrameType) == JOB_FRAMES | CONTROL_FRAMES | RESULT_FRAMES
    assert not JOB_FRAMES & CONTROL_FRAMES and not CONTROL_FRAMES & RESULT_FRAMES
    assert {FrameType.SELFCHECK} == JOB_FRAMES & RESULT_FRAMES  # the canary answers in kind
    # A member is its string on the wire, and equal to it (and hashed as it) on reading.
    assert json.dumps({"type": FrameType.CODE_LOADED}) == '{"type": "code_loaded"}'
    assert {"test": 1}[FrameType.TEST] == 1


def _type_reads(tree: ast.AST) -> tuple[set[int], set[str]]:
    """The ids of expressions reading a header's "type" (``h.get("type")``,
    ``h["type"]``), and the names such a read is assigned to anywhere in the module."""
    reads: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "type"
        ) or (
            isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == "type"
        ):
            reads.add(id(node))
    names = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and id(node.value) in reads
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    return reads, names


def _frame_literals(expr: ast.AST) -> list[str]:
    items = expr.elts if isinstance(expr, ast.Tuple | ast.List | ast.Set) else [expr]
    return [
        item.value
        for item in items
        if isinstance(item, ast.Constant) and isinstance(item.value, str)
        if item.value in FRAME_NAMES
    ]


def frame_name_literals(path: Path) -> list[str]:
    """Where a frame kind is spelled as a string in ``path``: as the value of a "type" key
    in a dict display, or compared with a read of a header's "type"."""
    tree = ast.parse(path.read_text(), str(path))
    reads, names = _type_reads(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "type":
                    found += [f"{path}:{node.lineno}: {s!r}" for s in _frame_literals(value)]
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(id(o) in reads or (isinstance(o, ast.Name) and o.id in names) for o in operands):
                for operand in operands:
                    found += [f"{path}:{node.lineno}: {s!r}" for s in _frame_literals(operand)]
    return found


def test_the_detector_finds_what_it_looks_for(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(frame, h):\n"
        '    send({"type": "done"})\n'
        '    if frame.header.get("type") == "test": pass\n'
        '    if h["type"] in ("loaded", "x"): pass\n'
        '    kind = h.get("type")\n'
        '    return kind != "tampered", name == "test", {"type": "int"}\n'
    )
    found = [line.split(": ", 1)[1] for line in frame_name_literals(sample)]
    assert sorted(found) == sorted(["'done'", "'test'", "'loaded'", "'tampered'"])


def test_every_frame_kind_in_the_code_comes_from_frame_type() -> None:
    wire_py = ROOT / "graders" / "harness" / "wire.py"
    offenders: dict[str, list[str]] = {}
    for folder in ("graders", "app"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == wire_py:
                continue
            found = frame_name_literals(path)
            if found:
                offenders[str(path.relative_to(ROOT))] = found
    assert offenders == {}, offenders


def test_every_frame_kind_is_used_outside_its_definition() -> None:
    source = "".join(
        p.read_text() for p in sorted((ROOT / "graders").rglob("*.py")) if p.name != "wire.py"
    )
    unused = [m.name for m in FrameType if f"FrameType.{m.name}" not in source]
    assert not unused


def test_decoded_arrays_survive_with_their_bytes() -> None:
    encoder = Encoder(2**20)
    values = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([1 + 2j])}
    node = encoder.value(values)
    frames, _ = wire.split_frames(wire.pack({"type": "test", "obs": node}, encoder.body), 2**20)
    back = read_outcome(JobOutcome(frames=frames).to_bytes()).frames[0]
    decoded = wire.decode_value(back.header["obs"], back.body)
    for key, array in values.items():
        assert decoded[key].values.dtype == array.dtype
        np.testing.assert_array_equal(decoded[key].values, array)
