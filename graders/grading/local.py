"""Grading on this machine: the warm bubblewrap pools, their self-check, the references.

Two pools, never mixed: the *learner* pool runs submissions (and, for ``drill validate``,
starters, known-wrong solutions and alternatives); the *reference* pool runs reference
solutions only, so no byte of a reference ever reaches a process that runs learner code,
not even as memory a warm worker passes on to its children.
"""

from __future__ import annotations

import logging
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graders.errors import SandboxError, SandboxUnavailable
from graders.grading import cgroups
from graders.grading.backend import BackendStatus, grade_with
from graders.grading.catalog import Exercise
from graders.grading.isolation import (
    PROJECT,
    WORKER_ENV,
    JobLimits,
    SandboxKind,
    bwrap_works,
    find_bwrap,
    job_limits,
    reference_limits,
    worker_command,
)
from graders.grading.jobs import Job, JobOutcome
from graders.grading.pool import WorkerPool
from graders.grading.references import DiskCache, Reference, ReferenceStore
from graders.grading.results import GradeResult, Mode
from graders.sandbox.wire import FrameType
from graders.settings import Settings

log = logging.getLogger("drill.grading")

PROCESS_WARNING = (
    "SANDBOX DISABLED: submissions run as plain processes with resource limits only "
    "(no file system, network or process isolation). Install bubblewrap and set "
    "DRILL_SANDBOX=bwrap for production."
)
REFERENCE_IDLE_SECONDS = 60.0


NO_CGROUPS = cgroups.CgroupStatus("none", "not set up")


@dataclass(frozen=True)
class SandboxStatus:
    kind: SandboxKind
    warning: str | None  # why the fallback is in use, shown everywhere when set
    cgroups: cgroups.CgroupStatus = NO_CGROUPS


class LocalBackend:
    """Grades in warm worker pools on this machine; thread-safe ``grade()``."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._closed = False
        self.pool: WorkerPool | None = None
        self.sandbox: SandboxStatus | None = None
        self._reference_pool: WorkerPool | None = None
        self._reference_lock = threading.Lock()
        self._reference_timer: threading.Timer | None = None
        self.references: ReferenceStore | None = None

    # --- life cycle ---

    def start(self) -> None:
        self.pool, self.sandbox = self._start_learner_pool()
        self.references = ReferenceStore(
            DiskCache(self.settings.cache_dir / "references"),
            _LazyPool(self),
            self.reference_limits(),
        )

    def close(self) -> None:
        self._closed = True
        if self.pool is not None:
            self.pool.close()
        self._stop_reference_pool()  # under its lock: a background warm-up cannot restart it
        if self._reference_timer is not None:
            self._reference_timer.cancel()
        cgroups.close_shared()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def status(self) -> BackendStatus:
        assert self.sandbox is not None and self.pool is not None, "start() first"
        return BackendStatus(
            self.sandbox.kind,
            self.pool.live_workers,
            self.sandbox.warning,
            cgroups=self.sandbox.cgroups.mode,
        )

    def _command(self, kind: SandboxKind, role: str = "learner") -> Any:
        return pool_command(self.settings, kind, role)

    def _start_learner_pool(self) -> tuple[WorkerPool, SandboxStatus]:
        return start_checked_pool(self.settings, "learner", self.settings.workers)

    def selfcheck(self, pool: WorkerPool) -> str | None:
        return selfcheck(self.settings, pool)

    # --- limits ---

    def limits(self, exercise: Exercise | None = None) -> JobLimits:
        return job_limits(self.settings, exercise)

    def reference_limits(self) -> JobLimits:
        return reference_limits(self.settings)

    # --- references ---

    def reference_pool(self) -> WorkerPool:
        with self._reference_lock:
            if self._closed:
                raise SandboxError("the grader is shut down")
            if self._reference_pool is None:
                assert self.sandbox is not None, "start() first"
                pool = WorkerPool(
                    self._command(self.sandbox.kind, "reference"),
                    1,
                    "reference",
                    self.settings.worker_start_timeout,
                    cgroups.shared_tree(self.settings.cgroups)[0],
                )
                pool.start()
                self._reference_pool = pool
            self._schedule_reference_shutdown()
            return self._reference_pool

    def _schedule_reference_shutdown(self) -> None:
        # References are cached; the reference worker is not worth its memory when idle.
        if self._reference_timer is not None:
            self._reference_timer.cancel()
        self._reference_timer = threading.Timer(REFERENCE_IDLE_SECONDS, self._stop_reference_pool)
        self._reference_timer.daemon = True
        self._reference_timer.start()

    def _stop_reference_pool(self) -> None:
        with self._reference_lock:
            if self._reference_pool is not None:
                self._reference_pool.close()
                self._reference_pool = None

    def reference(self, exercise: Exercise, track: str, variant: int | None = None) -> Reference:
        assert self.references is not None, "start() first"
        return self.references.get(exercise, track, variant)

    # --- grading ---

    def grade(
        self,
        exercise: Exercise,
        track: str,
        code: str,
        mode: Mode,
        job_id: str | None = None,
        variant: int | None = None,
    ) -> GradeResult:
        """Grade ``code`` on the examples (``run``) or the hidden tests (``submit``) of
        this version of the exercise."""
        pool = self.pool
        assert pool is not None, "start() first"
        reference = self.reference(exercise, track, variant)
        limits = self.limits(exercise)
        return grade_with(pool.run, reference, exercise, track, code, mode, limits, variant)


def pool_command(settings: Settings, kind: SandboxKind, role: str) -> Any:
    bwrap = find_bwrap(settings.bwrap_path)
    return lambda fd: worker_command(kind, fd, bwrap, role)


def start_checked_pool(
    settings: Settings, role: str, size: int, probe_port: int | None = None
) -> tuple[WorkerPool, SandboxStatus]:
    """A started pool of ``role`` workers in the sandbox the settings ask for, after its
    self-check; the unsafe ``process`` fallback only where the settings allow it."""
    s = settings
    try:
        tree, kernel = cgroups.shared_tree(s.cgroups)
    except cgroups.CgroupError as exc:  # DRILL_CGROUPS=v1 or v2, and that one is unusable
        raise SandboxUnavailable(str(exc)) from None
    reason: str | None = None
    if s.sandbox in ("auto", "bwrap"):
        bwrap = find_bwrap(s.bwrap_path)
        reason = bwrap_works(bwrap) if bwrap else "bubblewrap (bwrap) is not installed"
        if reason is None:
            pool = WorkerPool(
                pool_command(s, "bwrap", role), size, role, s.worker_start_timeout, tree
            )
            try:
                pool.start()
                reason = selfcheck(s, pool, probe_port)
            except SandboxError as exc:
                reason = str(exc)
            if reason is None:
                log.info("sandbox: bubblewrap, %d warm %s workers, %s", size, role, kernel.mode)
                return pool, SandboxStatus("bwrap", None, kernel)
            pool.close()
        if s.sandbox == "bwrap":
            raise SandboxUnavailable(f"DRILL_SANDBOX=bwrap but the sandbox is unusable: {reason}")
    warning = PROCESS_WARNING + (f" (bubblewrap: {reason})" if reason else "")
    log.warning(warning)
    pool = WorkerPool(pool_command(s, "process", role), size, role, s.worker_start_timeout, tree)
    pool.start()
    return pool, SandboxStatus("process", warning, kernel)


def selfcheck(settings: Settings, pool: WorkerPool, probe_port: int | None = None) -> str | None:
    """Run the canary job; return what it could reach that it must not, or None.

    ``probe_port``: a port on this machine's loopback the canary must not reach (a
    grading worker passes its broker's); by default one opened for the purpose."""
    s = settings
    secrets: list[str | Path] = [
        s.exercises_dir,
        s.var_dir,
        PROJECT / "graders" / "grading" / "catalog.py",
        PROJECT / "app",
    ]
    if s.database_url.startswith("sqlite:///"):
        secrets.append(s.database_url.removeprefix("sqlite:///"))
    with socket.socket() as listener:  # a port of the host the canary must not reach
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        limits = job_limits(s)
        job = Job(
            {
                "type": FrameType.SELFCHECK,
                "secret_paths": [str(p) for p in secrets],
                "probe_port": probe_port or listener.getsockname()[1],
                "limits": limits.for_child(),
            }
        )
        outcome = pool.run(job, limits)
    frames = [f.header for f in outcome.frames if f.header.get("type") == FrameType.SELFCHECK]
    if not frames:
        return f"the self-check job did not report (exit {outcome.exit_code})"
    report = frames[0]
    allowed_env = set(WORKER_ENV) | {"LC_CTYPE", "PWD"}
    problems = [
        *(f"can see {p}" for p in report.get("visible_paths", [])),
        *(f"can write to {p}" for p in report.get("writable", [])),
        *(f"can reach the network ({n})" for n in report.get("network", [])),
        *(f"environment has {v}" for v in report.get("environment", []) if v not in allowed_env),
    ]
    if report.get("uid") == 0:
        problems.append("runs as root")
    if pool.cgroups is not None:
        problems += _outside_job_cgroup(pool.cgroups.mode, report.get("cgroup"))
    return "; ".join(problems) or None


def _outside_job_cgroup(mode: str, own: object) -> list[str]:
    """The canary's own /proc/self/cgroup: a job must run in its worker's job cgroup, in
    the pids and memory hierarchies (v1) or the unified one (v2)."""
    lines = own.splitlines() if isinstance(own, str) else []
    paths: dict[str, str] = {}
    for line in lines:
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if mode == "v2" and number == "0":
            paths["cgroup v2"] = path
        for name in controllers.split(","):
            if mode == "v1" and name in ("pids", "memory"):
                paths[name] = path
    wanted = ["cgroup v2"] if mode == "v2" else ["pids", "memory"]
    return [
        f"a job runs outside its {name} cgroup ({paths.get(name, 'not listed')})"
        for name in wanted
        if not paths.get(name, "").endswith("/job")
    ]


class _LazyPool:
    """Starts the reference pool on first use (the cache usually makes it unneeded)."""

    def __init__(self, backend: LocalBackend) -> None:
        self.backend = backend

    def run(self, job: Job, limits: JobLimits) -> JobOutcome:
        return self.backend.reference_pool().run(job, limits)
