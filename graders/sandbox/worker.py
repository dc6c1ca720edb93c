"""The warm worker: imports numpy and torch once, then forks a fresh child per job.

Started by the server (inside bubblewrap, or as a plain process in the ``process``
fallback) with one end of a Unix socket as its *control* channel. The protocol:

1. The worker imports the libraries and sends ``ready``.
2. It forks a *spare* child that blocks reading a job, and passes the server the write
   end of that child's job pipe and the read end of its result pipe (``SCM_RIGHTS``).
   The worker itself never reads a job or a result, so no submission's code or data
   ever lands in the memory that later children inherit.
3. The server writes the job, reads result frames until EOF, and may send ``kill``.
4. When the child ends, the worker reaps it, kills anything it left behind, reports
   ``exit`` with its status and resource use, and forks the next spare child.
5. Before each fork it checks that its own state (every resource limit, nice value, CPU
   affinity, scheduling policy, I/O priority) is what it was when it became ready: a
   child inherits all of it, and another process of the same user could change it. If
   anything changed, it reports ``tainted`` with the reason and exits; the server
   replaces it, and the job meant for it goes to another worker.

The child closes the control socket before it reads the job, so learner code can
reach neither the server's control channel nor the worker's state.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import resource
import select
import signal
import socket
import sys
from typing import Any

from graders.sandbox import integrity, prewarm, runner, wire
from graders.sandbox.wire import FrameType

MAX_JOB = wire.MAX_JOB
MAX_FDS = 64
NPROC_WARM_TASKS = 32  # the worker's own tasks, which RLIMIT_NPROC counts with the job's
PREWARM_LIMITS = {"output_bytes": 4096, "result_bytes": 1 << 20}
# Built once in the warm worker (main); run by each spare child while it waits.
PREWARM: tuple[dict[str, Any], bytes] | None = None
# The worker's own state when it became ready (process_state): checked before each fork,
# and the values a child resets the limits its job does not set itself to.
BASELINE: dict[str, Any] | None = None
TAINTED_EXIT = 75  # the worker's exit status after it reported itself tainted

# Every resource limit getrlimit can read, by one name each (RLIMIT_OFILE is NOFILE).
RLIMITS: dict[str, int] = {}
for _name in sorted(n for n in dir(resource) if n.startswith("RLIMIT_")):
    if getattr(resource, _name) not in RLIMITS.values():
        RLIMITS[_name] = getattr(resource, _name)
_IOPRIO_GET, _IOPRIO_WHO_PROCESS, _IOPRIO_CLASS_SHIFT = 252, 1, 13
_IOPRIO_CLASS_NONE, _IOPRIO_CLASS_BE = 0, 2
_LIBC = ctypes.CDLL(None, use_errno=True)


def _ioprio(nice: int) -> str:
    """This process's I/O priority as "class C level L". Class "none" means "derived from
    the nice value" (best effort, level (nice + 20) / 5), which is what it is made into
    here, so that the kernel filling in the default later does not read as a change."""
    raw = _LIBC.syscall(_IOPRIO_GET, _IOPRIO_WHO_PROCESS, 0)
    if raw < 0:
        return "unknown"
    cls, level = raw >> _IOPRIO_CLASS_SHIFT, raw & ((1 << _IOPRIO_CLASS_SHIFT) - 1)
    if cls == _IOPRIO_CLASS_NONE:
        cls, level = _IOPRIO_CLASS_BE, (nice + 20) // 5
    return f"class {cls} level {level}"


def process_state() -> dict[str, Any]:
    """What every child inherits from this process and another process of the same user
    could change from outside: resource limits, nice value, CPU affinity, scheduling
    policy and priority, I/O priority. About 20 system calls: 10-16 µs measured."""
    state: dict[str, Any] = {name: resource.getrlimit(which) for name, which in RLIMITS.items()}
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    state["nice"] = nice
    state["affinity"] = os.sched_getaffinity(0)
    state["scheduler"] = os.sched_getscheduler(0)
    state["sched_priority"] = os.sched_getparam(0).sched_priority
    state["ioprio"] = _ioprio(nice)
    return state


def _show(value: Any) -> str:
    """A limit as "(soft, hard)" with "unlimited"; a CPU set sorted; anything else as is."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(str(v) for v in sorted(value)) + "}"
    if isinstance(value, tuple):
        return (
            "("
            + ", ".join("unlimited" if v == resource.RLIM_INFINITY else str(v) for v in value)
            + ")"
        )
    return repr(value)


def state_changes(baseline: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """One line per difference, e.g. "RLIMIT_FSIZE changed from (unlimited, unlimited) to
    (0, 0)"; empty when nothing changed."""
    if now == baseline:
        return []
    return [
        f"{key} changed from {_show(value)} to {_show(now.get(key))}"
        for key, value in baseline.items()
        if now.get(key) != value
    ]


def _prctl(option: int, arg: int) -> None:
    ctypes.CDLL(None).prctl(option, arg, 0, 0, 0)


_HUGE = 2 * 1024 * 1024
_MADV_HUGEPAGE, _MADV_COLLAPSE = 14, 25


def collapse_heap() -> int:
    """Back the warm worker's anonymous heap with 2 MiB pages; return the bytes collapsed.

    Every job forks this process and its child exits afterwards: with ~200 MiB of
    anonymous memory in 4 KiB pages, copying and tearing down the page tables cost about
    30 ms per job (measured); in huge pages, about 10 ms. Copy-on-write still happens per
    4 KiB page in the child (the kernel splits a huge page on its first write).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    collapsed = 0
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for parts in regions:
        anonymous = len(parts) < 6 or parts[5] == "[heap]"
        if not (parts[1].startswith("rw") and anonymous):
            continue
        lo, hi = (int(v, 16) for v in parts[0].split("-"))
        start, end = -(-lo // _HUGE) * _HUGE, hi // _HUGE * _HUGE
        if end - start < _HUGE:
            continue
        libc.madvise(start, end - start, _MADV_HUGEPAGE)
        if libc.madvise(start, end - start, _MADV_COLLAPSE) == 0:  # Linux 6.1+; else no-op
            collapsed += end - start
    return collapsed


def warm_up() -> dict[str, str]:
    """Import and exercise everything a job needs, so no job pays for it."""
    import tempfile

    # The sandbox has no writable folder; torch only needs the name of one at import.
    tempfile.tempdir = "/tmp"
    import numpy as np
    import torch
    import torch.utils.checkpoint

    import graders.sandbox.encode
    import graders.sandbox.runner
    import graders.sandbox.seccomp
    import graders.sandbox.testing  # noqa: F401

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    layer = torch.nn.Linear(4, 4)
    x = torch.randn(2, 4, requires_grad=True)
    out = torch.utils.checkpoint.checkpoint(layer, x, use_reentrant=False)
    out.sum().backward()
    np.linalg.norm(np.arange(4.0))
    return {"numpy": np.__version__, "torch": torch.__version__, "python": sys.version.split()[0]}


class Worker:
    def __init__(self, ctrl: socket.socket, sandboxed: bool) -> None:
        self.ctrl = ctrl
        self.sandboxed = sandboxed
        self.baseline: dict[str, Any] | None = None

    def send(self, header: dict[str, Any], fds: list[int] | None = None) -> None:
        data = wire.pack(header)
        if fds:
            socket.send_fds(self.ctrl, [data], fds)
        else:
            self.ctrl.sendall(data)

    def serve(self) -> None:
        while True:
            self.check_untainted()
            job_r, job_w = os.pipe()
            res_r, res_w = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child
                os.close(job_w)
                os.close(res_r)
                self.ctrl.close()
                child_main(job_r, res_w, self.sandboxed)
            os.close(job_r)
            os.close(res_w)
            self.send({"type": FrameType.SPARE, "pid": pid}, [job_w, res_r])
            os.close(job_w)
            os.close(res_r)
            killed = self.wait(pid)
            self.sweep(pid)
            _, status, usage = os.wait4(pid, 0)
            self.reap_orphans()
            self.send(
                {
                    "type": FrameType.EXIT,
                    "pid": pid,
                    "code": os.waitstatus_to_exitcode(status),
                    "killed": killed,
                    "cpu_s": usage.ru_utime + usage.ru_stime,
                    "maxrss_kb": usage.ru_maxrss,
                }
            )

    def check_untainted(self) -> None:
        """Before a fork: if anything a child would inherit differs from the baseline (a
        job, or anyone, changed it from outside), report it and exit, so that no later
        job runs with it. The server replaces this worker."""
        if self.baseline is None:
            return
        changes = state_changes(self.baseline, process_state())
        if not changes:
            return
        reason = "; ".join(changes)[:2000]
        with contextlib.suppress(OSError):
            print(f"drill worker tainted: {reason}", file=sys.stderr, flush=True)
        with contextlib.suppress(OSError):
            self.send({"type": FrameType.TAINTED, "reason": reason})
        os._exit(TAINTED_EXIT)

    def wait(self, pid: int) -> bool:
        """Wait for the child to end; kill it if the server asks. True if killed."""
        pidfd = os.pidfd_open(pid)
        killed = False
        buffer = b""
        try:
            while True:
                ready, _, _ = select.select([pidfd, self.ctrl.fileno()], [], [])
                if pidfd in ready:
                    return killed
                chunk = self.ctrl.recv(4096)
                if not chunk:  # the server went away
                    self.kill_child(pid)
                    sys.exit(0)
                buffer += chunk
                frames, buffer = wire.split_frames(buffer, 0)
                # Only a request naming this child counts: a late one for the previous
                # child (which ended on its own meanwhile) must not hit this one.
                asked = {f.header.get("type") for f in frames if f.header.get("pid") == pid}
                if FrameType.REPORT in asked and FrameType.KILL not in asked:
                    # The wall-clock limit: the child writes where it is and ends
                    # (runner.Job.on_time_limit); the server kills it soon after anyway.
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, runner.REPORT_SIGNAL)
                if FrameType.KILL in asked:
                    self.kill_child(pid)
                    killed = True
        finally:
            os.close(pidfd)

    def kill_child(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)

    @staticmethod
    def reap_orphans() -> None:
        # As a subreaper we inherit whatever the child left behind; collect it.
        while True:
            try:
                reaped, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if reaped == 0:
                return

    def sweep(self, pid: int) -> None:
        """Kill whatever the job left running before the next child starts."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        if not self.sandboxed:
            return
        # Inside our own PID namespace every other process is the job's doing.
        me = os.getpid()
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in (1, me, pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(int(entry), signal.SIGKILL)


def child_main(job_r: int, res_w: int, sandboxed: bool) -> None:  # pragma: no cover
    """Runs in the forked child: warm up, lock down, read the job, run it, exit."""
    code = 0
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        # All of this happens while the child waits for a job, off the request path.
        if PREWARM is not None:
            prewarm.run_until_job_arrives(job_r, PREWARM)
        lock_down(keep=(job_r, res_w))
        with os.fdopen(job_r, "rb", buffering=0) as job_file:
            frame = wire.read_frame(job_file.read, MAX_JOB)
        if frame is None:
            os._exit(0)
        header = frame.header
        limit(header["limits"])
        if header.get("type") == FrameType.SELFCHECK:
            from graders.sandbox.selfcheck import run_selfcheck

            os.write(res_w, wire.pack({"type": FrameType.SELFCHECK, **run_selfcheck(header)}))
        else:
            runner.Job(header, res_w, frame.body).run()
    except BaseException as exc:  # the harness failed, not the learner
        with contextlib.suppress(BaseException):
            os.write(
                res_w, wire.pack({"type": FrameType.HARNESS_ERROR, "message": repr(exc)[:2000]})
            )
        code = 70
    os._exit(code)


def _vm_size() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def lock_down(keep: tuple[int, ...]) -> None:  # pragma: no cover - in the child
    """Close every fd but ``keep``, detach stdin, apply the seccomp filter. Done before
    the job arrives: nothing of it depends on the job."""
    from graders.sandbox import seccomp

    for entry in os.listdir("/proc/self/fd"):
        fd = int(entry)
        if fd > 2 and fd not in keep:
            with contextlib.suppress(OSError):
                os.close(fd)
    devnull = os.open("/dev/null", os.O_RDONLY)
    os.dup2(devnull, 0)  # stdin reads end at once
    os.close(devnull)
    if seccomp.supported():
        seccomp.install()


def _setrlimit(name: str, value: tuple[int, int]) -> None:
    """setrlimit, failing with a message that names the limit: a child cannot raise a hard
    limit, so one lowered in the worker from outside must stop the job, never go unseen."""
    which = RLIMITS[name]
    try:
        resource.setrlimit(which, value)
    except (ValueError, OSError) as exc:
        raise RuntimeError(
            f"cannot set {name} to {_show(value)}: the worker's limit is "
            f"{_show(resource.getrlimit(which))} ({exc})"
        ) from None


def in_job_cgroup(own: str | None = None) -> bool:
    """Whether this child runs in a job cgroup with both a pids and a memory limit (the
    server moves it there before it sends the job; graders/grading/cgroups.py). Read from the
    kernel before any learner code runs, so nothing a job does can change the answer."""
    if own is None:
        try:
            with open("/proc/self/cgroup") as file:
                own = file.read(8192)
        except OSError:
            return False
    found: set[str] = set()
    for line in own.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if not path.endswith("/job"):
            continue
        if number == "0" and controllers == "":
            found |= {"pids", "memory"}  # v2: one hierarchy, both controllers
        found |= set(controllers.split(",")) & {"pids", "memory"}
    return found == {"pids", "memory"}


def limit(limits: dict[str, Any]) -> None:  # pragma: no cover - in the child
    """Apply the job's resource limits. Every limit is set explicitly, so none that the
    child inherited decides a verdict: the job's own ones below, every other one back to
    the worker's value at start-up (BASELINE)."""
    # CPU: the job's allowance on top of what the warm-up already used.
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(limits["cpu_seconds"]) + round(used.ru_utime + used.ru_stime)
    # Address space: what the warm worker already maps plus the learner's allowance. An
    # allocation past it is a MemoryError at the learner's line; the job cgroup's memory
    # limit (a little above) bounds what address space does not show: memfds, pipes,
    # kernel memory, pages copied on write.
    memory = _vm_size() + int(limits["memory_bytes"])
    # Caps raw writes to the output capture (and any file, though none is writable).
    fsize = int(limits["raw_output_bytes"])
    # In a job cgroup, its pids.max is the exact count of the job's tasks, and this one a
    # backstop with room for the warm worker's own tasks, which it counts too.
    nproc = int(limits["processes"]) + (NPROC_WARM_TASKS if in_job_cgroup() else 0)
    own = {
        "RLIMIT_CPU": (cpu, cpu + 1),
        "RLIMIT_AS": (memory, memory),
        # Private writable memory is part of the address space: never the tighter limit.
        "RLIMIT_DATA": (memory, memory),
        "RLIMIT_FSIZE": (fsize, fsize),
        "RLIMIT_CORE": (0, 0),
        # Counts every task of the user (in bubblewrap, of its user namespace: the warm
        # worker's own too), and binds no one the kernel exempts (root outside a namespace).
        "RLIMIT_NPROC": (nproc, nproc),
        # Few descriptors: memfds and pipes hold memory that RLIMIT_AS does not count
        # (each memfd is capped by RLIMIT_FSIZE, so this bounds the total without a
        # memory cgroup; memory_memfd_bomb.py, memory_fd_hoard.py).
        "RLIMIT_NOFILE": (MAX_FDS, MAX_FDS),
    }
    if BASELINE is not None:  # the stack, locked memory, RSS, queues, nice, ...
        for name in RLIMITS:
            if name not in own:
                _setrlimit(name, BASELINE[name])
    for name, value in own.items():
        _setrlimit(name, value)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the cap fails, not kills


def main(argv: list[str]) -> None:
    ctrl_fd, backend = int(argv[0]), argv[1]
    _prctl(4, 0)  # PR_SET_DUMPABLE 0: a child may not ptrace or read this process
    _prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans of a job come back to us
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    ctrl = socket.socket(fileno=ctrl_fd)
    worker = Worker(ctrl, sandboxed=backend == "bwrap")
    versions = warm_up()
    # Before any job: the harness's classes become immutable, their functions' code can no
    # longer be replaced, and the library functions the tests rely on are noted, to be
    # checked in every job (graders.sandbox.integrity).
    runner.freeze_harness()
    runner.refuse_function_changes()
    runner.LIBRARIES = integrity.library_snapshot()
    runner.HARNESS = runner.harness_functions()
    # Move everything imported so far out of the collector's reach: a child's garbage
    # collections then neither walk nor touch (and copy) the inherited heap.
    gc.collect()
    gc.freeze()
    runner.snapshot_modules()
    global PREWARM
    PREWARM = prewarm.prepare(PREWARM_LIMITS)
    versions["huge_pages_mib"] = str(collapse_heap() // 2**20)
    # What every child inherits, as it is before any job ran (Worker.check_untainted).
    global BASELINE
    BASELINE = worker.baseline = process_state()
    worker.send({"type": FrameType.READY, "pid": os.getpid(), "versions": versions})
    worker.serve()
