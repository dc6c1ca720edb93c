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
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graders import verdicts
from graders.backend import BackendStatus
from graders.catalog import Exercise
from graders.errors import SandboxError, SandboxUnavailable
from graders.harness.wire import FrameType
from graders.jobs import Job, JobOutcome, job_for
from graders.pool import WorkerPool
from graders.references import Reference, ReferenceStore
from graders.results import GradeResult, Mode
from graders.sandbox import (
    GRADERS,
    WORKER_ENV,
    Backend,
    JobLimits,
    bwrap_works,
    find_bwrap,
    worker_command,
)
from graders.settings import Settings

log = logging.getLogger("drill.grading")

PROCESS_WARNING = (
    "SANDBOX DISABLED: submissions run as plain processes with resource limits only "
    "(no file system, network or process isolation). Install bubblewrap and set "
    "DRILL_SANDBOX=bwrap for production."
)
REFERENCE_IDLE_SECONDS = 60.0


@dataclass(frozen=True)
class SandboxStatus:
    backend: Backend
    warning: str | None  # why the fallback is in use, shown everywhere when set


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
            self.settings.cache_dir, _LazyPool(self), self.reference_limits()
        )

    def close(self) -> None:
        self._closed = True
        if self.pool is not None:
            self.pool.close()
        self._stop_reference_pool()  # under its lock: a background warm-up cannot restart it
        if self._reference_timer is not None:
            self._reference_timer.cancel()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def status(self) -> BackendStatus:
        assert self.sandbox is not None and self.pool is not None, "start() first"
        return BackendStatus(self.sandbox.backend, self.pool.live_workers, self.sandbox.warning)

    def _command(self, backend: Backend, role: str = "learner") -> Any:
        bwrap = find_bwrap(self.settings.bwrap_path)
        return lambda fd: worker_command(backend, fd, bwrap, role)

    def _start_learner_pool(self) -> tuple[WorkerPool, SandboxStatus]:
        s = self.settings
        reason: str | None = None
        if s.sandbox in ("auto", "bwrap"):
            bwrap = find_bwrap(s.bwrap_path)
            reason = bwrap_works(bwrap) if bwrap else "bubblewrap (bwrap) is not installed"
            if reason is None:
                pool = WorkerPool(
                    self._command("bwrap"), s.workers, "learner", s.worker_start_timeout
                )
                try:
                    pool.start()
                    reason = self.selfcheck(pool)
                except SandboxError as exc:
                    reason = str(exc)
                if reason is None:
                    log.info("sandbox: bubblewrap, %d warm workers", s.workers)
                    return pool, SandboxStatus("bwrap", None)
                pool.close()
            if s.sandbox == "bwrap":
                raise SandboxUnavailable(
                    f"DRILL_SANDBOX=bwrap but the sandbox is unusable: {reason}"
                )
        warning = PROCESS_WARNING + (f" (bubblewrap: {reason})" if reason else "")
        log.warning(warning)
        pool = WorkerPool(self._command("process"), s.workers, "learner", s.worker_start_timeout)
        pool.start()
        return pool, SandboxStatus("process", warning)

    def selfcheck(self, pool: WorkerPool) -> str | None:
        """Run the canary job; return what it could reach that it must not, or None."""
        s = self.settings
        secrets: list[str | Path] = [
            s.exercises_dir,
            s.var_dir,
            GRADERS / "catalog.py",
            GRADERS.parent / "app",
        ]
        if s.database_url.startswith("sqlite:///"):
            secrets.append(s.database_url.removeprefix("sqlite:///"))
        with socket.socket() as listener:  # a port of the host the canary must not reach
            listener.bind(("127.0.0.1", 0))
            listener.listen()
            job = Job(
                {
                    "type": FrameType.SELFCHECK,
                    "secret_paths": [str(p) for p in secrets],
                    "probe_port": listener.getsockname()[1],
                    "limits": self.limits().for_child(),
                }
            )
            outcome = pool.run(job, self.limits())
        frames = [f.header for f in outcome.frames if f.header.get("type") == FrameType.SELFCHECK]
        if not frames:
            return f"the self-check job did not report (exit {outcome.exit_code})"
        report = frames[0]
        allowed_env = set(WORKER_ENV) | {"LC_CTYPE", "PWD"}
        problems = [
            *(f"can see {p}" for p in report.get("visible_paths", [])),
            *(f"can write to {p}" for p in report.get("writable", [])),
            *(f"can reach the network ({n})" for n in report.get("network", [])),
            *(
                f"environment has {v}"
                for v in report.get("environment", [])
                if v not in allowed_env
            ),
        ]
        if report.get("uid") == 0:
            problems.append("runs as root")
        return "; ".join(problems) or None

    # --- limits ---

    def limits(self, exercise: Exercise | None = None) -> JobLimits:
        s = self.settings
        own = exercise.meta.limits if exercise else None
        return JobLimits(
            cpu_seconds=(own.cpu_seconds if own and own.cpu_seconds else s.cpu_seconds),
            wall_seconds=(own.wall_seconds if own and own.wall_seconds else s.wall_seconds),
            memory_bytes=(own.memory_mb if own and own.memory_mb else s.memory_mb) * 2**20,
            output_bytes=s.output_bytes,
            result_bytes=s.result_mb * 2**20,
            processes=s.processes,
        )

    def reference_limits(self) -> JobLimits:
        base = self.limits()
        return JobLimits(
            30,
            120,
            max(base.memory_bytes, 2 * 2**30),
            base.output_bytes,
            base.result_bytes,
            base.processes,
        )

    # --- references ---

    def reference_pool(self) -> WorkerPool:
        with self._reference_lock:
            if self._closed:
                raise SandboxError("the grader is shut down")
            if self._reference_pool is None:
                assert self.sandbox is not None, "start() first"
                pool = WorkerPool(
                    self._command(self.sandbox.backend, "reference"),
                    1,
                    "reference",
                    self.settings.worker_start_timeout,
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

    def reference(self, exercise: Exercise, track: str) -> Reference:
        assert self.references is not None, "start() first"
        return self.references.get(exercise, track)

    # --- grading ---

    def grade(self, exercise: Exercise, track: str, code: str, mode: Mode) -> GradeResult:
        """Grade ``code`` on the examples (``run``) or the hidden tests (``submit``) of
        this version of the exercise."""
        assert self.pool is not None, "start() first"
        started = time.perf_counter()
        exercise.track(track)
        reference = self.reference(exercise, track)
        names = reference.names(example=mode == "run")
        limits = self.limits(exercise)
        ctx = verdicts.Context(
            exercise.slug, track, mode, names, reference, limits, exercise.track(track).parameters
        )
        try:
            compile(code, "solution.py", "exec", dont_inherit=True)
        except SyntaxError as exc:
            return verdicts.syntax_error(ctx, exc)
        except ValueError as exc:  # e.g. null bytes
            return verdicts.syntax_error(ctx, SyntaxError(str(exc)))
        job = job_for(exercise, track, code, names, limits, examples_only=mode == "run")
        outcome = self.pool.run(job, limits)
        result = verdicts.build(ctx, outcome)
        result.duration_ms = round((time.perf_counter() - started) * 1000, 1)
        return result


class _LazyPool:
    """Starts the reference pool on first use (the cache usually makes it unneeded)."""

    def __init__(self, backend: LocalBackend) -> None:
        self.backend = backend

    def run(self, job: Job, limits: JobLimits) -> JobOutcome:
        return self.backend.reference_pool().run(job, limits)
