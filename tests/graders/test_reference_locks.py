"""ReferenceStore's locking, with a pool that never runs a sandbox: one computation per
key, and a computation that hangs holds up its own key only."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from pathlib import Path

from graders.grading.catalog import Exercise, load_catalog
from graders.grading.isolation import JobLimits
from graders.grading.jobs import Job, JobOutcome
from graders.grading.references import DiskCache, ReferenceStore
from tests.catalog import shipped_exercises_dir

LIMITS = JobLimits(5.0, 5.0, 2**30, 65536, 2**20, 64)


def two_tracks() -> Exercise:
    exercise = load_catalog(shipped_exercises_dir()).get("gradient-checkpointing")
    assert {"numpy", "torch"} <= set(exercise.tracks)
    return exercise


class StuckOnFirstTrack:
    """A pool whose runs for ``stuck`` hang until ``release``; every other run fails at
    once (what it fails with does not matter here: that it was reached does)."""

    def __init__(self, exercise: Exercise, stuck: str) -> None:
        self.tracks = {t.solution: name for name, t in exercise.tracks.items()}
        self.stuck = stuck
        self.release = threading.Event()
        self.entered = threading.Event()
        self.runs: list[str] = []
        self.running = self.most_at_once = 0
        self._count = threading.Lock()

    def run(self, job: Job, limits: JobLimits) -> JobOutcome:
        track = self.track_of(job)
        with self._count:
            self.runs.append(track)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        try:
            if track == self.stuck:
                self.entered.set()
                self.release.wait(30)
            raise RuntimeError(f"ran the {track} reference")
        finally:
            with self._count:
                self.running -= 1

    def track_of(self, job: Job) -> str:
        return self.tracks[job.header["code"]]  # a reference job runs the track's solution


def test_a_hung_reference_holds_up_its_own_key_only(tmp_path: Path) -> None:
    exercise = two_tracks()
    pool = StuckOnFirstTrack(exercise, "numpy")
    store = ReferenceStore(DiskCache(tmp_path), pool, LIMITS)
    errors: dict[str, BaseException] = {}

    def get(track: str) -> None:
        try:
            store.get(exercise, track)
        except BaseException as exc:  # what it raised is the answer
            errors[track] = exc

    stuck = threading.Thread(target=get, args=("numpy",), daemon=True)
    stuck.start()
    assert pool.entered.wait(10)
    other = threading.Thread(target=get, args=("torch",), daemon=True)
    other.start()
    other.join(10)
    waited = other.is_alive()
    pool.release.set()
    stuck.join(10)
    assert not waited, "the torch reference waited for the numpy one"
    assert "ran the torch reference" in str(errors["torch"])
    assert "ran the numpy reference" in str(errors["numpy"])


def test_requests_for_one_key_compute_it_one_at_a_time(tmp_path: Path) -> None:
    exercise = two_tracks()
    pool = StuckOnFirstTrack(exercise, "numpy")
    store = ReferenceStore(DiskCache(tmp_path), pool, LIMITS)
    threads = [
        threading.Thread(target=_quietly, args=(store.get, exercise, "numpy"), daemon=True)
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    assert pool.entered.wait(10)
    time.sleep(0.5)  # time for the other two to reach the key's lock (or, unlocked, the pool)
    pool.release.set()
    for t in threads:
        t.join(30)
    # A failed computation is not remembered, so each request tried in turn, never two
    # at once (a reference job is two sandbox runs a node would otherwise pay twice).
    assert pool.runs == ["numpy"] * 3
    assert pool.most_at_once == 1


def _quietly(call: Callable[..., object], *args: object) -> None:
    with contextlib.suppress(RuntimeError):  # the pool's failure, expected
        call(*args)
