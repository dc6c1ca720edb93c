"""Reference observations: computed in a sandbox that never runs learner code, checked
for determinism, cached on disk by a hash of the exercise's files, the harness and the
library versions.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import threading
from contextlib import AbstractContextManager, nullcontext
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from graders.catalog import Exercise
from graders.compare import Tolerance, compare
from graders.errors import ReferenceFailure
from graders.harness import wire
from graders.harness.wire import FrameType
from graders.jobs import Job, JobOutcome, job_for
from graders.sandbox import GRADERS, JobLimits

log = logging.getLogger("drill.references")


class TestOptions(BaseModel):
    """A test's options as the tests module registered them (see graders.testing)."""

    __test__ = False

    name: str = Field(min_length=1, max_length=200)
    example: bool
    hint: int | None = Field(None, ge=1)
    rtol: float = Field(ge=0)
    atol: float = Field(ge=0)
    exact_dtype: bool
    reveal: Literal["full", "summary", "none"]

    @property
    def tolerance(self) -> Tolerance:
        return Tolerance(self.rtol, self.atol, self.exact_dtype, self.reveal)


Encoded = dict[str, tuple[Any, bytes]]  # test name -> (value node, body) as on the wire


class Reference:
    """The reference's test options and observations for one track version."""

    def __init__(self, key: str, tests: list[TestOptions], encoded: Encoded) -> None:
        self.key = key
        self.tests = tests
        self.encoded = encoded  # kept for the disk cache
        self.observations = {n: wire.decode_value(node, b) for n, (node, b) in encoded.items()}

    def names(self, example: bool) -> list[str]:
        return [t.name for t in self.tests if t.example == example]

    def options(self, name: str) -> TestOptions:
        return next(t for t in self.tests if t.name == name)


def _harness_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted([GRADERS / "testing.py", *(GRADERS / "harness").glob("*.py")]):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _library_versions() -> str:
    return ",".join(f"{name}={metadata.version(name)}" for name in ("numpy", "torch"))


class JobRunner(Protocol):
    def run(self, job: Job, limits: JobLimits) -> JobOutcome: ...


CachedReference = dict[str, Any]  # {"key", "tests", "results"}: JSON data, as stored


class ReferenceCache(Protocol):
    """Where computed references are kept: a folder on one machine, or the shared
    database, so that N web nodes compute each reference once, not N times."""

    def load(self, key: str) -> CachedReference | None:
        """The stored data of ``key``, or None."""
        ...

    def save(self, key: str, data: CachedReference) -> None: ...

    def claim(self, key: str) -> AbstractContextManager[None]:
        """Held while this node computes ``key``: another node that wants the same key
        waits for it, then finds it stored (a no-op where there is one node)."""
        ...


class DiskCache:
    """References as JSON files in one folder (one machine)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def load(self, key: str) -> CachedReference | None:
        try:
            data = json.loads(self._path(key).read_text())
        except FileNotFoundError:
            return None
        except ValueError as exc:
            log.warning("ignoring a broken reference cache file %s: %s", self._path(key), exc)
            return None
        return data if isinstance(data, dict) else None

    def save(self, key: str, data: CachedReference) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)

    def claim(self, key: str) -> AbstractContextManager[None]:
        return nullcontext()  # one machine: ReferenceStore's own lock is enough


class ReferenceStore:
    """Reference observations per (exercise version, track), memoised and cached."""

    def __init__(self, cache: ReferenceCache, pool: JobRunner, limits: JobLimits) -> None:
        self.cache = cache
        self.pool = pool
        self.limits = limits
        self.salt = f"{_harness_hash()}|{_library_versions()}"
        self._memo: dict[str, Reference] = {}
        self._lock = threading.Lock()

    def key(self, exercise: Exercise, track: str) -> str:
        # The track's fingerprint: the run's exact inputs (see catalog.Track).
        fingerprint = exercise.track(track).fingerprint
        raw = f"{exercise.slug}|{exercise.version}|{track}|{self.salt}|{fingerprint}"
        return hashlib.sha256(raw.encode()).hexdigest()[:24]

    def get(self, exercise: Exercise, track: str) -> Reference:
        key = self.key(exercise, track)
        ref = self._memo.get(key)
        if ref is not None:
            return ref
        with self._lock:  # one computation per key, even under concurrent requests
            ref = self._memo.get(key) or self._load(key)
            if ref is None:
                with self.cache.claim(key):  # and one across nodes sharing the cache
                    ref = self._load(key)
                    if ref is None:
                        ref = self.compute(exercise, track, key)
                        self.cache.save(key, _cached(key, ref))
            self._memo[key] = ref
            return ref

    def compute(self, exercise: Exercise, track: str, key: str | None = None) -> Reference:
        """Run the reference twice in separate children; both runs must agree."""
        key = key or self.key(exercise, track)
        job = job_for(exercise, track, exercise.track(track).solution, None, self.limits)
        where = f"{exercise.slug}/{track}/solution.py"
        first = _parse_run(self.pool.run(job, self.limits), where)
        second = _parse_run(self.pool.run(job, self.limits), where)
        tests, results = first
        for name, (node, body) in results.items():
            other_node, other_body = second[1][name]
            if node != other_node or body != other_body:
                a = wire.decode_value(node, body)
                b = wire.decode_value(other_node, other_body)
                detail = compare(a, b, Tolerance(0, 0, True, "full")) or "encoded bytes differ"
                raise ReferenceFailure(
                    f"{where}: not deterministic — test {name!r} observed different values in "
                    f"two runs ({detail})"
                )
        return Reference(key, tests, results)

    def _load(self, key: str) -> Reference | None:
        data = self.cache.load(key)
        if data is None:
            return None
        try:
            if data["key"] != key:
                raise ValueError(f"it holds key {data['key']!r}")
            tests = [TestOptions.model_validate(t) for t in data["tests"]]
            results = {
                name: (entry["obs"], base64.b64decode(entry["body"]))
                for name, entry in data["results"].items()
            }
            return Reference(key, tests, results)
        except (ValueError, KeyError, TypeError, ValidationError, wire.WireError) as exc:
            log.warning("ignoring a broken cached reference %s: %s", key, exc)
            return None


def _cached(key: str, ref: Reference) -> CachedReference:
    return {
        "key": key,
        "tests": [t.model_dump() for t in ref.tests],
        "results": {
            name: {"obs": node, "body": base64.b64encode(body).decode()}
            for name, (node, body) in ref.encoded.items()
        },
    }


def _parse_run(outcome: JobOutcome, where: str) -> tuple[list[TestOptions], Encoded]:
    """Check one reference run: every test ran and observed; return options and values."""
    if outcome.worker_lost or outcome.killed_for or outcome.malformed:
        problem = outcome.malformed or outcome.killed_for or "the sandbox worker died"
        raise ReferenceFailure(f"{where}: the reference run did not complete ({problem})")
    tests: list[TestOptions] | None = None
    results: Encoded = {}
    done = False
    for frame in outcome.frames:
        h = frame.header
        kind = h.get("type")
        if kind == FrameType.LOADED:
            try:
                tests = [TestOptions.model_validate(t) for t in h.get("tests", [])]
            except ValidationError as exc:
                raise ReferenceFailure(f"{where}: bad test options: {exc}") from None
        elif kind == FrameType.TEST:
            name = h.get("name")
            if h.get("status") != "ok":
                error = h.get("error") or {}
                detail = h.get("message") or f"{error.get('type')}: {error.get('message')}"
                tb = error.get("traceback") or ""
                raise ReferenceFailure(
                    f"{where}: the reference fails test {name!r}: {detail}\n{tb}"
                )
            results[str(name)] = (h.get("obs"), frame.body)
        elif kind == FrameType.DONE:
            done = True
        elif kind == FrameType.CODE_LOADED:
            pass
        else:
            error = h.get("error") or {}
            message = h.get("message") or f"{error.get('type')}: {error.get('message')}"
            raise ReferenceFailure(f"{where}: {kind}: {message}")
    if tests is None or not done:
        raise ReferenceFailure(f"{where}: the reference run ended early (exit {outcome.exit_code})")
    if not tests:
        raise ReferenceFailure(f"{where}: tests.py registers no tests")
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        tests_file = where.removesuffix("solution.py") + "tests.py"
        raise ReferenceFailure(f"{tests_file}: two tests are named {twice!r}; names must be unique")
    return tests, results
