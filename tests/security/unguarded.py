"""Grade a submission in this process with named forgery guards turned off.

The "proves it works" half of the forgery suite (``test_forgeries.py``): a forgery must
fail through the real service, and pass here, where the guards it names are undone, so
that each guard is shown to be what stops it. The reference is run with the same guards
off, as an unguarded grader would have run it. A guard is undone before the job's tests
module is loaded, so what that module imports from the harness is the undone version.
Only the tests use this module.

Usage: ``python -m tests.security.unguarded SLUG TRACK FILE GUARD...``; prints the result
as JSON.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import torch

from graders.grading import verdicts
from graders.grading.catalog import load_catalog
from graders.grading.isolation import JobLimits
from graders.grading.jobs import JobOutcome, job_for
from graders.grading.references import Reference, TestOptions
from graders.sandbox import checkpointing, encode, integrity, memory, prewarm, records, runner, wire
from tests.catalog import shipped_exercises_dir

LIMITS = JobLimits(30, 60, 2**31, 65536, 64 * 2**20, 64)


class _OpenRecord:
    """A call record as an unguarded harness kept it: a list anyone holding it can edit."""

    def __init__(self, calls: records.Calls) -> None:
        self.calls = calls
        self.layers: list[int] = []


def _open_records() -> None:
    @contextlib.contextmanager
    def recording(t: Any, phase: str) -> Iterator[_OpenRecord]:
        calls = records.start_recording(phase)
        record = _OpenRecord(calls)
        try:
            yield record
        finally:
            records.stop_recording(calls)

    encode_value = encode.Encoder.value

    def value(self: Any, v: Any, depth: int = 0) -> Any:
        if type(v) is _OpenRecord:
            phase, layers, _inputs, _randoms, more = records.read_record(v.calls)
            return {"t": "calls", "phase": phase, "v": [*layers, *v.layers], "more": more}
        return encode_value(self, v, depth)

    checkpointing.recording = recording  # type: ignore[assignment]
    encode.Encoder.value = value  # type: ignore[method-assign]


def _no_kept_observation() -> None:
    @contextlib.contextmanager
    def kept_for_backward(t: Any, parameters_of: Any = None) -> Iterator[records.Kept]:
        exclude = set()
        if parameters_of is not None:
            exclude = {p.untyped_storage().data_ptr() for p in parameters_of.parameters()}
        kept, _pack = records.start_keeping(frozenset(exclude))
        calls: list[Any] = []
        t._watching.append(calls)
        try:
            yield kept  # no hooks: only the graph is read (the graph-observation guard)
        finally:
            t._watching[:] = [w for w in t._watching if w is not calls]
        records.add_kept(kept, *checkpointing.kept_by_graph(calls, t._namespace, None))

    checkpointing.kept_for_backward = kept_for_backward


def _no_graph_observation() -> None:
    # What autograd keeps is seen through the harness's saved-tensor hooks alone, which
    # a learner's own pair of hooks takes over.
    checkpointing.kept_by_graph = lambda *args: ({}, None)


def _no_python_memory() -> None:
    held_since = checkpointing.held_since

    def blind(started: bool, sentinel: Any, floor: int = memory.PYTHON_FLOOR) -> int:
        held_since(started, sentinel, floor)  # stops the tracing all the same
        return 0  # NumPy arrays and Python objects are never counted

    checkpointing.held_since = blind


class _AnyTensor:
    def __contains__(self, cls: type) -> bool:
        return issubclass(cls, torch.Tensor)


def _any_tensor_type() -> None:
    # Any subclass is a tensor, and its flags are whatever its attributes say.
    encode._TENSOR_TYPES = _AnyTensor()  # type: ignore[assignment]
    encode._requires_grad = lambda t: t.requires_grad
    encode._grad_fn = lambda t: t.grad_fn
    encode._is_leaf = lambda t: t.is_leaf


GUARDS: dict[str, Callable[[], None]] = {
    "hidden-modules": lambda: setattr(
        integrity, "hidden_modules", lambda *_: contextlib.nullcontext()
    ),
    "integrity": lambda: setattr(runner.Job, "check_integrity", lambda self: None),
    "function-code": lambda: setattr(integrity.Functions, "changed", lambda self: None),
    "input-digests": lambda: setattr(records, "digest", lambda value: 0),
    "kept-observation": _no_kept_observation,
    "graph-observation": _no_graph_observation,
    "python-memory": _no_python_memory,
    "records-out-of-reach": _open_records,
    "tensor-types": _any_tensor_type,
}


def run_job(header: dict[str, Any], body: bytes) -> list[wire.Frame]:
    sink = os.memfd_create("frames")
    try:
        with prewarm.restored_process():
            runner.Job(header, sink, body).run()
        frames, rest = wire.split_frames(os.pread(sink, 1 << 26, 0), 1 << 26)
    finally:
        os.close(sink)
    assert rest == b""
    return frames


def grade(slug: str, track: str, code: str, guards_off: list[str]) -> dict[str, Any]:
    for name in guards_off:
        GUARDS[name]()
    exercise = load_catalog(shipped_exercises_dir()).get(slug)
    tr = exercise.track(track)
    reference_frames = run_job(*_job(exercise, track, tr.solution, None))
    loaded = next(f for f in reference_frames if f.header["type"] == "loaded")
    tests = [TestOptions(**options) for options in loaded.header["tests"]]
    encoded = {
        f.header["id"]: (f.header["obs"], f.body)
        for f in reference_frames
        if f.header["type"] == "test"
    }
    reference = Reference("unguarded", tests, encoded)
    ids = reference.ids(example=False)
    ctx = verdicts.Context(slug, track, "submit", ids, reference, LIMITS)
    outcome = JobOutcome(frames=run_job(*_job(exercise, track, code, ids)), exit_code=0)
    return verdicts.build(ctx, outcome).model_dump(mode="json")


def _job(exercise: Any, track: str, code: str, names: list[str] | None) -> tuple[Any, bytes]:
    job = job_for(exercise, track, code, names, LIMITS)
    return job.header, job.body


if __name__ == "__main__":
    import json

    slug, track, path, *off = sys.argv[1:]
    from tests.security.bounded_report import with_bounded_report

    with open(path) as source:
        print(json.dumps(grade(slug, track, with_bounded_report(source.read()), off)))
