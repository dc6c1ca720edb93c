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
from collections import OrderedDict
from contextlib import AbstractContextManager, nullcontext
from importlib import metadata
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, Field, ValidationError

from graders.errors import ReferenceFailure
from graders.grading.catalog import Exercise
from graders.grading.compare import Tolerance, compare
from graders.grading.isolation import SANDBOX_PACKAGE, JobLimits
from graders.grading.jobs import Job, JobOutcome, job_for
from graders.sandbox import wire
from graders.sandbox.wire import FrameType

log = logging.getLogger("drill.references")


# Letters, digits, "_", "-" and "."; what a Python function name always is.
TEST_ID_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"


NonNegative = Annotated[float, Field(ge=0)]


class TestOptions(BaseModel):
    """A test's options as the tests module registered them (see graders.sandbox.testing)."""

    __test__ = False

    # The test's identity: statistics, exports and regrades key by it (graders.sandbox.testing).
    id: str = Field(pattern=TEST_ID_PATTERN)
    name: str = Field(min_length=1, max_length=200)
    example: bool
    hint: int | None = Field(None, ge=1)
    rtol: float = Field(ge=0)
    atol: float = Field(ge=0)
    exact_dtype: bool
    reveal: Literal["full", "summary", "none"]
    per_learner: bool = False
    # (rtol, atol) by dtype name where the test sets them (testing.TestSpec.tolerances)
    tolerances: dict[str, tuple[NonNegative, NonNegative]] = Field(
        default_factory=dict, max_length=8
    )

    @property
    def tolerance(self) -> Tolerance:
        by_dtype = tuple((name, rtol, atol) for name, (rtol, atol) in self.tolerances.items())
        return Tolerance(self.rtol, self.atol, self.exact_dtype, self.reveal, by_dtype)

    def tolerance_of(self, dtype: str) -> tuple[float, float]:
        """(rtol, atol) this test compares values of ``dtype`` with."""
        return self.tolerance.of(dtype)


Encoded = dict[str, tuple[Any, bytes]]  # test id -> (value node, body) as on the wire


class Reference:
    """The reference's test options and observations for one track version (and, for
    its ``per_learner`` tests, one variant)."""

    def __init__(self, key: str, tests: list[TestOptions], encoded: Encoded) -> None:
        self.key = key
        self.tests = tests
        self.encoded = encoded  # kept for the disk cache
        self.observations = {i: wire.decode_value(node, b) for i, (node, b) in encoded.items()}
        self._options = {t.id: t for t in tests}

    def ids(self, example: bool) -> list[str]:
        """The ids of the examples (``example``) or of the hidden tests, in order."""
        return [t.id for t in self.tests if t.example == example]

    def names(self, example: bool) -> list[str]:
        """The display names of the examples or of the hidden tests, in order."""
        return [t.name for t in self.tests if t.example == example]

    def options(self, test_id: str) -> TestOptions:
        return self._options[test_id]

    def per_learner(self, ids: list[str]) -> list[str]:
        """Those of ``ids`` whose inputs are drawn per learner."""
        return [i for i in ids if self._options[i].per_learner]


def _harness_hash() -> str:
    digest = hashlib.sha256()
    for path in sorted(SANDBOX_PACKAGE.glob("*.py")):
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


# Per-learner references kept in memory (the rest stay in the cache): a course's active
# learners, without letting many learners grow the server's memory without bound.
VARIANT_MEMO = 2048


class ReferenceStore:
    """Reference observations per (exercise version, track), memoised and cached; for a
    track with ``per_learner`` tests, also per variant (one learner's draws)."""

    def __init__(self, cache: ReferenceCache, pool: JobRunner, limits: JobLimits) -> None:
        self.cache = cache
        self.pool = pool
        self.limits = limits
        self.salt = f"{_harness_hash()}|{_library_versions()}"
        self._memo: dict[str, Reference] = {}
        self._variants: OrderedDict[str, Reference] = OrderedDict()
        # One lock per key being computed: a reference stuck in its run (a worker lost, the
        # broker away) holds up requests for that key only, not every other exercise's.
        self._computing: dict[str, threading.Lock] = {}
        self._state = threading.Lock()  # guards the two memos and _computing

    def key(self, exercise: Exercise, track: str, variant: int | None = None) -> str:
        # The track's fingerprint: the run's exact inputs (see catalog.Track).
        fingerprint = exercise.track(track).fingerprint
        raw = f"{exercise.slug}|{exercise.version}|{track}|{self.salt}|{fingerprint}"
        if variant is not None:
            raw += f"|variant={variant}"
        return hashlib.sha256(raw.encode()).hexdigest()[:24]

    def get(self, exercise: Exercise, track: str, variant: int | None = None) -> Reference:
        """The reference of a track; with ``variant``, its ``per_learner`` tests observed
        on that variant's draws (the other tests are everyone's)."""
        base = self._get(exercise, track, None, None)
        if variant is None or not any(t.per_learner for t in base.tests):
            return base
        return self._get(exercise, track, variant, base)

    def _get(
        self, exercise: Exercise, track: str, variant: int | None, base: Reference | None
    ) -> Reference:
        key = self.key(exercise, track, variant)
        ref = self._remembered(key, base)
        if ref is not None:
            return ref
        with self._state:
            computing = self._computing.setdefault(key, threading.Lock())
        with computing:  # one computation per key, even under concurrent requests
            ref = self._remembered(key, base) or self._load(key, base)
            if ref is None:
                with self.cache.claim(key):  # and one across nodes sharing the cache
                    ref = self._load(key, base)
                    if ref is None:
                        ref = self.compute(exercise, track, key, variant, base)
                        self.cache.save(key, _cached(key, ref, base))
            with self._state:
                if base is None:
                    self._memo[key] = ref
                else:
                    self._variants[key] = ref
                    self._variants.move_to_end(key)
                    while len(self._variants) > VARIANT_MEMO:
                        self._variants.popitem(last=False)
                # Remembered now: a request that finds no lock finds the reference.
                self._computing.pop(key, None)
            return ref

    def _remembered(self, key: str, base: Reference | None) -> Reference | None:
        with self._state:
            return self._memo.get(key) if base is None else self._variants.get(key)

    def compute(
        self,
        exercise: Exercise,
        track: str,
        key: str | None = None,
        variant: int | None = None,
        base: Reference | None = None,
    ) -> Reference:
        """Run the reference twice in separate children; both runs must agree. With a
        ``base``, only its ``per_learner`` tests run, on ``variant``'s draws."""
        key = key or self.key(exercise, track, variant)
        ids = None if base is None else [t.id for t in base.tests if t.per_learner]
        solution = exercise.track(track).solution
        job = job_for(exercise, track, solution, ids, self.limits, variant=variant)
        where = f"{exercise.slug}/{track}/solution.py"
        first = _parse_run(self.pool.run(job, self.limits), where)
        second = _parse_run(self.pool.run(job, self.limits), where)
        tests, results = first
        for test_id, (node, body) in results.items():
            other_node, other_body = second[1][test_id]
            if node != other_node or body != other_body:
                a = wire.decode_value(node, body)
                b = wire.decode_value(other_node, other_body)
                detail = compare(a, b, Tolerance(0, 0, True, "full")) or "encoded bytes differ"
                raise ReferenceFailure(
                    f"{where}: not deterministic — test {test_id!r} observed different values "
                    f"in two runs ({detail})"
                )
        if base is not None:
            return Reference(key, base.tests, {**base.encoded, **results})
        return Reference(key, tests, results)

    def _load(self, key: str, base: Reference | None = None) -> Reference | None:
        data = self.cache.load(key)
        if data is None:
            return None
        try:
            if data["key"] != key:
                raise ValueError(f"it holds key {data['key']!r}")
            tests = [TestOptions.model_validate(t) for t in data["tests"]]
            results = {
                test_id: (entry["obs"], base64.b64decode(entry["body"]))
                for test_id, entry in data["results"].items()
            }
            if base is not None:  # a variant stores its own draws' observations only
                return Reference(key, base.tests, {**base.encoded, **results})
            return Reference(key, tests, results)
        except (ValueError, KeyError, TypeError, ValidationError, wire.WireError) as exc:
            log.warning("ignoring a broken cached reference %s: %s", key, exc)
            return None

    def is_ready(self, exercise: Exercise, track: str) -> bool:
        """Whether ``get(exercise, track)`` has the reference at hand (memoised or in the
        cache), rather than running the reference solution first (``drill grade`` says so)."""
        key = self.key(exercise, track)
        return key in self._memo or self._load(key) is not None


def _cached(key: str, ref: Reference, base: Reference | None = None) -> CachedReference:
    """What the cache keeps of ``ref``; of a variant, only what differs from ``base``."""
    mine = {t.id for t in ref.tests if t.per_learner} if base is not None else None
    return {
        "key": key,
        "tests": [t.model_dump() for t in ref.tests],
        "results": {
            test_id: {"obs": node, "body": base64.b64encode(body).decode()}
            for test_id, (node, body) in ref.encoded.items()
            if mine is None or test_id in mine
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
    stopped = ""  # where a time limit stopped the run, as its stopped frame says
    for frame in outcome.frames:
        h = frame.header
        kind = h.get("type")
        if kind == FrameType.LOADED:
            try:
                tests = [TestOptions.model_validate(t) for t in h.get("tests", [])]
            except ValidationError as exc:
                raise ReferenceFailure(f"{where}: bad test options: {exc}") from None
        elif kind == FrameType.TEST:
            test_id = str(h.get("id"))
            if h.get("status") != "ok":
                error = h.get("error") or {}
                detail = h.get("message") or f"{error.get('type')}: {error.get('message')}"
                tb = error.get("traceback") or ""
                name = next((t.name for t in tests or () if t.id == test_id), test_id)
                raise ReferenceFailure(
                    f"{where}: the reference fails test {name!r}: {detail}\n{tb}"
                )
            results[test_id] = (h.get("obs"), frame.body)
        elif kind == FrameType.DONE:
            done = True
        elif kind == FrameType.CODE_LOADED:
            pass
        elif kind == FrameType.STOPPED:
            line = h.get("line")
            stopped = f"; a time limit stopped it in test {h.get('test')!r}" + (
                f", at line {line} of the solution" if type(line) is int else ""
            )
        else:
            error = h.get("error") or {}
            message = (
                h.get("message")
                or h.get("what")  # a tampered frame: what changed
                or f"{error.get('type')}: {error.get('message')}"
            )
            raise ReferenceFailure(f"{where}: {kind}: {message}")
    if tests is None or not done:
        raise ReferenceFailure(
            f"{where}: the reference run ended early (exit {outcome.exit_code}{stopped})"
        )
    if not tests:
        raise ReferenceFailure(f"{where}: tests.py registers no tests")
    tests_file = where.removesuffix("solution.py") + "tests.py"
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise ReferenceFailure(f"{tests_file}: two tests are named {twice!r}; names must be unique")
    ids = [t.id for t in tests]
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        both = " and ".join(repr(t.name) for t in tests if t.id == twice)
        raise ReferenceFailure(
            f"{tests_file}: tests {both} have the same id {twice!r} (by default a test's id is "
            'its function\'s name); give one of them its own, e.g. @test(..., id="...")'
        )
    return tests, results
