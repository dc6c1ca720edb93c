"""The pool of warm workers, and the server's side of the worker protocol.

See ``graders/sandbox/worker.py`` for the other side. One job at a time per worker; a
worker that dies is replaced in the background while the others keep serving.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graders.errors import PoolBusy, WorkerLost
from graders.grading.cgroups import CgroupError, CgroupTree, WorkerCgroup
from graders.grading.isolation import WORKER_ENV, JobLimits
from graders.grading.jobs import (  # re-exported: JobOutcome and the result limits lived here
    FRAMES_BESIDES_TESTS,
    MAX_RESULT_VALUES,
    MAX_TESTS,
    Job,
    JobOutcome,
    expected_tests,
    result_budget,
)
from graders.sandbox import wire
from graders.sandbox.wire import FrameType

log = logging.getLogger("drill.pool")

__all__ = [
    "FRAMES_BESIDES_TESTS",
    "MAX_RESULT_VALUES",
    "MAX_TESTS",
    "JobOutcome",
    "WorkerPool",
    "WorkerProcess",
]

CONTROL_MAX_BODY = 0  # control messages never carry a body
KILL_GRACE = 3.0  # seconds a worker gets to report a killed child
# Seconds a child gets, at the wall-clock limit, to report where it is before it is
# killed: the longest a learner who blocks or ignores the request delays the kill.
REPORT_GRACE = 0.2
WATCH_INTERVAL = 0.5  # how often idle workers are checked for death


class WorkerProcess:
    """One warm worker process and its control socket."""

    def __init__(
        self, command: Callable[[int], list[str]], name: str, cgroups: CgroupTree | None = None
    ) -> None:
        self.command = command
        self.name = name
        # Its own cgroup, and one for each of its jobs (grading/cgroups.py); None: rlimits only.
        self.cgroup: WorkerCgroup | None = cgroups.worker(name) if cgroups is not None else None
        self.proc: subprocess.Popen[bytes] | None = None
        self.ctrl: socket.socket | None = None
        self.versions: dict[str, str] = {}
        self._buffer = b""
        self._fds: list[int] = []
        self._stderr_tail: list[str] = []
        self.alive = False
        self.jobs = 0
        self.busy = False  # running a job for the pool
        self.retired = False  # taken out of the pool; a replacement was started
        self._owes_exit = False
        self._spare: _Spare | None = None  # the next spare child, taken between jobs
        self.tainted: str | None = None  # why the worker reported itself tainted
        self._stderr_thread: threading.Thread | None = None

    # --- life cycle ---

    def start(self, timeout: float, launcher: ThreadPoolExecutor) -> None:
        # bubblewrap's --die-with-parent follows the *thread* that started it, so every
        # worker is launched from the pool's one long-lived launcher thread.
        launcher.submit(self._launch).result()
        self._stderr_thread = threading.Thread(target=self._drain_stderr, daemon=True)
        self._stderr_thread.start()
        ready, _ = self._receive(time.monotonic() + timeout)
        if ready.header.get("type") != FrameType.READY:
            raise WorkerLost(f"{self.name}: expected 'ready', got {ready.header.get('type')!r}")
        self.versions = {k: str(v) for k, v in dict(ready.header.get("versions", {})).items()}
        self.alive = True

    def _launch(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = self.command(theirs.fileno())
        if self.cgroup is not None:
            command = self.cgroup.command(command)
        try:
            self.proc = subprocess.Popen(
                command,
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env=WORKER_ENV,
            )
        finally:
            theirs.close()
        self.ctrl = ours

    def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for raw in self.proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip()[:500]
            self._stderr_tail = [*self._stderr_tail[-19:], line]
            log.debug("%s: %s", self.name, line)

    def stop(self) -> None:
        self.alive = False
        if self._spare is not None:
            self._spare.close()
            self._spare = None
        for fd in self._fds:
            _close(fd)
        self._fds = []
        if self.ctrl is not None:
            self.ctrl.close()
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.proc.kill()
            self.proc.wait(timeout=10)
        if self.cgroup is not None:
            self.cgroup.remove()

    def healthy(self) -> bool:
        return self.alive and self.proc is not None and self.proc.poll() is None

    def describe_death(self) -> str:
        if self.tainted is not None:
            return f"{self.name} reported itself tainted: {self.tainted}"
        code = self.proc.poll() if self.proc else None
        if code is not None and self._stderr_thread is not None:
            # Its last words (a worker that found itself tainted says why on stderr too).
            self._stderr_thread.join(timeout=1.0)
        tail = " | ".join(self._stderr_tail[-3:])
        return f"{self.name} exited with {code}" + (f": {tail}" if tail else "")

    # --- control channel ---

    def _receive(self, deadline: float) -> tuple[wire.Frame, list[int]]:
        """Next control frame (and the fds that came with it), or WorkerLost."""
        assert self.ctrl is not None
        while True:
            frame, used = wire.next_frame(self._buffer, CONTROL_MAX_BODY)
            if frame is not None:
                self._buffer = self._buffer[used:]
                if frame.header.get("type") != FrameType.SPARE:
                    return frame, []
                # Only a spare child's message carries fds (its job and result pipes).
                fds, self._fds = self._fds, []
                return frame, fds
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerLost(f"{self.name}: no answer from the worker in time")
            ready, _, _ = select.select([self.ctrl], [], [], remaining)
            if not ready:
                continue
            data, fds, _flags, _addr = socket.recv_fds(self.ctrl, 65536, 4)
            self._fds.extend(fds)
            if not data:
                self.alive = False
                raise WorkerLost(self.describe_death())
            self._buffer += data

    def _send(self, header: dict[str, Any]) -> None:
        assert self.ctrl is not None
        self.ctrl.sendall(wire.pack(header))

    # --- jobs ---

    def run(self, job: Job, limits: JobLimits) -> JobOutcome:
        """Run a job; raise WorkerLost if the worker turns out dead before it started."""
        started = time.monotonic()
        spare, self._spare = self._spare, None
        try:
            if spare is None:
                spare = self._next_spare(started)
        except WorkerLost:
            self.alive = False
            raise
        self.jobs += 1
        try:
            if self.cgroup is not None:
                self._enter_job_cgroup(spare, limits)
            outcome = _Exchange(
                self, job, limits, started, spare.job_w, spare.res_r, spare.pid
            ).run()
        finally:
            spare.close()
        if self.cgroup is not None:
            self._note_cgroup(outcome)
        return outcome

    def prepare(self) -> None:
        """Between jobs, off every learner's path: the last child's exit report collected,
        the job cgroup emptied of whatever the job left, and the next spare child taken
        and moved into it, so the next job starts at once. Nothing of a job runs before
        its job is written, when its own limits are set (_enter_job_cgroup). Raises
        WorkerLost."""
        if self._spare is not None:
            return
        try:
            spare = self._next_spare(time.monotonic())
            if self.cgroup is not None:
                self._cgroup_step(self.cgroup.empty_job)
                self._cgroup_step(self.cgroup.enter_job, spare.pid)
                spare.entered = True
        except WorkerLost:
            self.alive = False
            raise
        self._spare = spare

    def _next_spare(self, started: float) -> _Spare:
        """The worker's next spare child, after the last child's exit report."""
        if self._owes_exit:  # the previous child's exit report, left for later
            self._expect_exit(started + KILL_GRACE)
        frame, fds = self._receive(started + 30)
        if frame.header.get("type") == FrameType.TAINTED:
            # Something changed the worker's limits or scheduling, which every child would
            # inherit (worker.check_untainted): it exits; the job goes to another worker.
            reason = frame.header.get("reason")
            self.tainted = reason[:2000] if isinstance(reason, str) else "no reason given"
            raise WorkerLost(self.describe_death())
        pid = frame.header.get("pid")
        if frame.header.get("type") != FrameType.SPARE or len(fds) != 2 or type(pid) is not int:
            for fd in fds:
                _close(fd)
            raise WorkerLost(f"{self.name}: protocol error, expected a spare child")
        return _Spare(pid, fds[0], fds[1])

    def _enter_job_cgroup(self, spare: _Spare, limits: JobLimits) -> None:
        """Before the job is written: nothing of the last job is left in the job cgroup,
        and the spare child is in it, under this job's limits. A worker whose cgroup
        cannot be used is lost; the job goes to another worker."""
        assert self.cgroup is not None
        if not spare.entered:  # not prepared: all of it now
            self._cgroup_step(self.cgroup.empty_job)
            self._cgroup_step(self.cgroup.enter_job, spare.pid)
        self._cgroup_step(self.cgroup.limit_job, limits.memory_bytes, limits.processes)

    def _cgroup_step(self, step: Callable[..., None], *args: Any) -> None:
        try:
            step(*args)
        except CgroupError as exc:
            self.alive = False
            raise WorkerLost(f"{self.name}: its job cgroup cannot be used: {exc}") from None

    def _note_cgroup(self, outcome: JobOutcome) -> None:
        """What the job cgroup saw: a kill at its memory limit is the memory verdict's."""
        assert self.cgroup is not None
        try:
            usage = self.cgroup.job_usage()
        except CgroupError as exc:
            log.warning("%s: cannot read its job cgroup: %s", self.name, exc)
            return
        if usage.oom_killed and outcome.killed_for is None:
            outcome.killed_for = "memory"
        outcome.pids_limited = usage.pids_limited

    def _expect_exit(self, deadline: float) -> wire.Frame:
        self._owes_exit = False
        frame, _ = self._receive(deadline)
        if frame.header.get("type") != FrameType.EXIT:
            self.alive = False
            raise WorkerLost(f"{self.name}: protocol error, expected an exit report")
        return frame


class _Spare:
    """A spare child the worker handed over: its pid, its job and result pipes, and
    whether it was moved into the emptied job cgroup (else it waits in the warm one)."""

    def __init__(self, pid: int, job_w: int, res_r: int) -> None:
        self.pid = pid
        self.job_w = job_w
        self.res_r = res_r
        self.entered = False

    def close(self) -> None:
        _close(self.job_w)
        _close(self.res_r)


class _Exchange:
    """One job on one worker: send the job, collect result frames, watch the clock.

    The result is complete once the child sent ``done`` after every test it was asked
    for; the worker's exit report for that child is then collected before the next job,
    off this job's critical path. Anything less complete waits for the exit report, which
    tells why the run ended.
    """

    def __init__(
        self,
        worker: WorkerProcess,
        job: Job,
        limits: JobLimits,
        started: float,
        job_w: int,
        res_r: int,
        child: Any = None,
    ) -> None:
        self.worker = worker
        self.limits = limits
        self.started = started
        self.job_w = job_w
        self.res_r = res_r
        # Kill requests name the child, so one that arrives after its child has already
        # ended can never hit the next job's child.
        self.child = child
        self.pending = memoryview(wire.pack(job.header, job.body))
        self.expected = expected_tests(job)
        self.outcome = JobOutcome()
        self.received = b""
        self.bytes_in = 0  # everything read from the result pipe, frames and all
        # Everything a child sends is charged before it is decoded (see wire.Budget).
        self.budget = result_budget(job, limits)
        self.tests_seen = 0
        self.complete = False
        self.eof = False
        self.exit_frame: wire.Frame | None = None
        self.deadline = started + limits.wall_seconds
        self.reporting = False  # asked the child where it is; its kill is still to come

    def run(self) -> JobOutcome:
        worker, outcome = self.worker, self.outcome
        assert worker.ctrl is not None
        os.set_blocking(self.job_w, False)
        while not self.complete and not (self.eof and self.exit_frame is not None):
            now = time.monotonic()
            deadline = self.deadline
            if now >= deadline:
                if outcome.killed_for is None:
                    # The wall-clock limit: the child is asked where it is (a stopped
                    # frame), and killed when that arrives or REPORT_GRACE is over.
                    outcome.killed_for = "wall"
                    worker._send({"type": FrameType.REPORT, "pid": self.child})
                    self.reporting = True
                    self.deadline = now + REPORT_GRACE
                    continue
                if self.reporting:
                    self._kill_reporting()
                    continue
                # No exit report after a kill: the worker is gone or wedged.
                outcome.worker_lost = True
                worker.alive = False
                break
            readers: list[Any] = [] if self.eof else [self.res_r]
            buffered = wire.next_frame(worker._buffer, CONTROL_MAX_BODY)[0] is not None
            if self.exit_frame is None:
                readers.append(worker.ctrl)
            writers = [self.job_w] if self.pending else []
            if self.exit_frame is None and buffered:
                ready_r: list[Any] = [worker.ctrl]
                ready_w: list[Any] = []
            else:
                ready_r, ready_w, _ = select.select(readers, writers, [], deadline - now)
            if self.job_w in ready_w:
                self._write()
            if self.res_r in ready_r:
                self._read()
            if worker.ctrl in ready_r and self.exit_frame is None:
                try:
                    frame, _ = worker._receive(time.monotonic() + KILL_GRACE)
                except WorkerLost as exc:
                    log.warning("%s", exc)
                    outcome.worker_lost = True
                    break
                if frame.header.get("type") != FrameType.EXIT:
                    outcome.worker_lost = True
                    worker.alive = False
                    break
                self.exit_frame = frame
        if self.complete and self.exit_frame is None:
            # The result is complete: the child has nothing left to do. One that lingers
            # (a thread, a patched os._exit) must not hold the worker, so the next job
            # would wait KILL_GRACE for its exit report. The kill names this child; if it
            # already ended, the worker ignores the request.
            with contextlib.suppress(OSError):  # a dead worker shows up at the next job
                worker._send({"type": FrameType.KILL, "pid": self.child})
            worker._owes_exit = True
        outcome.elapsed = time.monotonic() - self.started
        if self.exit_frame is not None:
            h = self.exit_frame.header
            outcome.exit_code = h.get("code") if isinstance(h.get("code"), int) else None
            outcome.cpu_seconds = float(h.get("cpu_s") or 0.0)
            outcome.maxrss_kb = int(h.get("maxrss_kb") or 0)
        if self.received and outcome.malformed is None and outcome.killed_for != "result_size":
            outcome.malformed = f"the result ended inside a frame ({len(self.received)} bytes left)"
        return outcome

    def _kill_reporting(self) -> None:
        """Kill the child asked for its report at the wall-clock limit; wait for its exit."""
        self.reporting = False
        self.worker._send({"type": FrameType.KILL, "pid": self.child})
        self.deadline = time.monotonic() + KILL_GRACE

    def _write(self) -> None:
        try:
            sent = os.write(self.job_w, self.pending[:65536])
            self.pending = self.pending[sent:]
        except BrokenPipeError:
            self.pending = self.pending[:0]

    def _read(self) -> None:
        chunk = os.read(self.res_r, 1 << 20)
        if not chunk:
            self.eof = True
            return
        if self.outcome.malformed or self.outcome.killed_for == "result_size":
            return  # keep draining so the child is not blocked, but ignore the rest
        self.received += chunk
        self.bytes_in += len(chunk)
        if self.bytes_in > self.limits.result_bytes:
            self.outcome.killed_for = "result_size"
            self.worker._send({"type": FrameType.KILL, "pid": self.child})
            self.received = b""
            return
        try:
            while True:
                frame, used = wire.next_frame(self.received, self.limits.result_bytes, self.budget)
                if frame is None:
                    break
                self.received = self.received[used:]
                self.outcome.frames.append(frame)
                kind = frame.header.get("type")
                self.tests_seen += kind == FrameType.TEST
                if kind == FrameType.STOPPED and self.reporting:
                    self._kill_reporting()  # it reported: no need to wait out the grace
                if kind == FrameType.DONE and self.expected is not None:
                    self.complete = self.tests_seen == self.expected
        except wire.WireError as exc:
            self.outcome.malformed = str(exc)
            self.received = b""
            # Nothing more it sends will be read: stop it now rather than at the time limit.
            self.worker._send({"type": FrameType.KILL, "pid": self.child})


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


class WorkerPool:
    """A fixed number of warm workers, each running one job at a time."""

    def __init__(
        self,
        command: Callable[[int], list[str]],
        size: int,
        name: str,
        start_timeout: float = 120.0,
        cgroups: CgroupTree | None = None,
    ) -> None:
        self.command = command
        self.size = size
        self.name = name
        self.start_timeout = start_timeout
        self.cgroups = cgroups
        self._idle: queue.Queue[WorkerProcess] = queue.Queue()
        self._all: set[WorkerProcess] = set()
        self._lock = threading.Lock()
        self._closed = False
        self._counter = 0
        self.versions: dict[str, str] = {}
        self._launcher = ThreadPoolExecutor(1, thread_name_prefix=f"{name}-launcher")
        # Long-lived threads that make workers ready between jobs (WorkerProcess.prepare):
        # starting a thread per job cost the request about 1 ms. Room for every worker and
        # as many replacements, so one slow to give its next spare child (up to 30 s, then
        # it is lost) holds no other out of the pool.
        self._tidier = ThreadPoolExecutor(2 * size + 2, thread_name_prefix=f"{name}-tidy")
        threading.Thread(target=self._watch, name=f"{name}-watch", daemon=True).start()

    def start(self) -> None:
        """Start every worker (in parallel) and wait until all are ready."""
        errors: list[BaseException] = []
        threads = [threading.Thread(target=self._spawn, args=(errors,)) for _ in range(self.size)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.close()
            raise errors[0]

    def _spawn(self, errors: list[BaseException] | None = None) -> None:
        with self._lock:
            self._counter += 1
            name = f"{self.name}-worker-{self._counter}"
        try:
            worker = WorkerProcess(self.command, name, self.cgroups)
        except CgroupError as exc:
            if errors is not None:
                errors.append(exc)
            else:
                log.error("could not make a cgroup for a worker: %s", exc)
            return
        try:
            worker.start(self.start_timeout, self._launcher)
        except BaseException as exc:
            worker.stop()
            if errors is not None:
                errors.append(exc)
            else:
                log.error("could not replace a worker: %s", exc)
            return
        with self._lock:
            if self._closed:
                worker.stop()
                return
            self._all.add(worker)
            self.versions = worker.versions
        self._tidy(worker)

    @property
    def live_workers(self) -> int:
        with self._lock:
            return sum(1 for w in self._all if w.healthy())

    def _watch(self) -> None:
        """Replace workers that die while idle, so the pool (and /healthz) heals itself."""
        while not self._closed:
            time.sleep(WATCH_INTERVAL)
            with self._lock:
                dead = [w for w in self._all if not w.healthy()]
            for worker in dead:
                if not worker.busy:
                    self._retire(worker)

    def run(self, job: Job, limits: JobLimits, wait: float = 60.0) -> JobOutcome:
        """Run one job on the next free worker; replace any worker that died.

        A worker found dead before the job reached it (killed while idle) costs the job
        nothing: the job goes to the next worker, or to a replacement.
        """
        deadline = time.monotonic() + wait
        while True:
            try:
                worker = self._idle.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise PoolBusy(f"no {self.name} worker became free within {wait:.0f} s") from None
            if worker.retired:  # replaced while it waited in the queue
                continue
            if not worker.healthy():
                self._retire(worker)
                continue
            worker.busy = True
            try:
                outcome = worker.run(job, limits)
            except WorkerLost as exc:
                log.warning("%s; the job goes to another worker", exc)
                self._retire(worker)
                continue
            except BaseException:
                worker.alive = False
                self._retire(worker)
                raise
            finally:
                worker.busy = False
            if worker.alive and not self._closed:
                self._tidy(worker)
            else:
                self._retire(worker)
            return outcome

    def _tidy(self, worker: WorkerProcess) -> None:
        """Give the worker back once it is ready for the next job (WorkerProcess.prepare),
        which happens in the background: the job's answer does not wait for it."""
        worker.busy = True

        def tidy() -> None:
            try:
                worker.prepare()
            except WorkerLost as exc:
                if not (self._closed or worker.retired):  # else stopped under it
                    log.warning("%s; it is replaced before it takes a job", exc)
            except BaseException:
                worker.alive = False
                if not (self._closed or worker.retired):  # else stopped under it
                    log.exception("%s: could not be made ready for its next job", worker.name)
            finally:
                worker.busy = False
            if worker.alive and not self._closed:
                self._idle.put(worker)
            else:
                self._retire(worker)

        try:
            self._tidier.submit(tidy)
        except RuntimeError:  # the pool is closing
            worker.busy = False
            self._retire(worker)

    def _retire(self, worker: WorkerProcess) -> None:
        with self._lock:
            if worker.retired:
                return
            worker.retired = True
            closing = self._closed
        if not closing:  # a pool shutting down stops its workers itself
            log.warning(
                "%s worker lost (%s); starting a replacement", self.name, worker.describe_death()
            )
        worker.stop()
        with self._lock:
            self._all.discard(worker)
            if self._closed:
                return
        threading.Thread(target=self._spawn, daemon=True).start()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.stop()
        self._launcher.shutdown(wait=False)
        self._tidier.shutdown(wait=False)
