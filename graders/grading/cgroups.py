"""Kernel limits for every warm worker and every job: a cgroup of their own.

Resource limits (``setrlimit``) are per process and leave gaps the kernel's control groups
close: ``RLIMIT_NPROC`` does not bind uid 0 (the service run as root), and ``RLIMIT_AS``
counts address space, not memory (memfd pages, pipe buffers, kernel memory and page cache
escape it). So each worker runs in a cgroup with ``pids.max`` and a memory limit, and the
child that runs a job is moved into a sub-cgroup of its own, limited to the job's share,
which is emptied and reset before the next job::

    <the cgroup this process started in>/drill-<pid>/   one tree per process, removed at exit
        0001-learner-worker-1/       the worker and its jobs together (a backstop)
            warm/                    bubblewrap and the warm Python worker
            job/                     the job's child: the job's pids.max and memory limit

On cgroup v2 the tree is one directory, when the pids and memory controllers are
delegated to a writable subtree (like nsjail, this process moves itself into a leaf of
its own when its cgroup must give up its processes to enable them). Otherwise, on the v1
``pids`` and ``memory`` hierarchies, the same tree exists once in each. What is usable is
found by trying it (a directory made, a limit written), never assumed from what is
mounted. Where neither works, :func:`open_tree` says why and grading keeps the resource
limits alone (``/healthz`` then reports ``"cgroups": "none"``).

Only the server's side (the pool, outside the sandbox) reads or writes these files; the
sandbox has its own cgroup namespace and no cgroup file system.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import itertools
import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

log = logging.getLogger("drill.cgroups")

Mode = Literal["v2", "v1", "none"]
Setting = Literal["auto", "v2", "v1", "off"]
CONTROLLERS = ("pids", "memory")
# A worker's cgroup holds its job and, besides, bubblewrap, the warm worker with its own
# few threads, and the next spare child: their tasks and memory on top of the job's.
WARM_TASKS = 32
WARM_MEMORY = 1536 * 2**20
# The child's own share on top of the learner's allowance: pages it copies from the warm
# worker on write, page tables, its result pipe. Measured at 1-12 MiB for the seed tracks
# jobs (docs/security.md); what the allowance means to a learner is still RLIMIT_AS's
# (MemoryError at the line), this limit bounds what that does not count.
JOB_MEMORY_MARGIN = 32 * 2**20
EMPTY_TIMEOUT = 5.0  # seconds for a job cgroup's processes to be gone after SIGKILL
# The shell that puts a worker into its cgroup before it becomes bubblewrap: a process
# must join its cgroup before it starts anything, and Popen's preexec_fn is not safe with
# threads. "$$" is the shell's own pid, which exec keeps.
ENTER = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


class CgroupError(OSError):
    """A cgroup file could not be read or written as the tree needs."""


@dataclass(frozen=True)
class CgroupStatus:
    """What ``/healthz`` and the log say: the kind in use, and why not a better one."""

    mode: Mode
    reason: str | None = None

    def describe(self) -> str:
        if self.mode == "none":
            return f"cgroups: none ({self.reason}); resource limits alone bound a job"
        return f"cgroups: {self.mode}, a cgroup per worker and per job" + (
            f" ({self.reason})" if self.reason else ""
        )


@dataclass(frozen=True)
class JobUsage:
    """What a job's cgroup saw while the job ran."""

    oom_killed: bool  # the memory limit was reached and the kernel killed the job
    pids_limited: bool  # a thread or process was refused at pids.max
    peak_bytes: int  # the job's highest memory use, or 0 when unknown


# --- files ---


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        raise CgroupError(exc.errno, f"cannot read {path}: {exc.strerror}") from None


def _write(path: Path, value: str) -> None:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)  # as the shell's "echo v > file" opens
    except OSError as exc:
        raise CgroupError(exc.errno, f"cannot open {path}: {exc.strerror}") from None
    try:
        os.write(fd, value.encode())
    except OSError as exc:
        raise CgroupError(exc.errno, f"cannot write {value!r} to {path}: {exc.strerror}") from None
    finally:
        os.close(fd)


def _keyed(text: str, key: str) -> int:
    """The number after ``key`` in a "key value" file (memory.events, pids.events)."""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == key:
            return int(parts[1])
    return 0


def _make(folder: Path) -> None:
    """A new cgroup: the kernel fills the directory with its control files."""
    folder.mkdir()


def _unmake(folder: Path) -> None:
    """Remove a cgroup (its control files go with it; it must hold no process)."""
    folder.rmdir()


def _pids(folder: Path) -> list[int]:
    return [int(p) for p in _read(folder / "cgroup.procs").split()]


def _kill_all(folders: list[Path], wait: float) -> None:
    """SIGKILL every process in ``folders`` until none is left (or raise CgroupError).

    Each process is signalled through a pidfd taken while it is listed in the folder, so a
    number reused by another process in between is never signalled."""
    deadline = time.monotonic() + wait
    while True:
        left = [(folder, pid) for folder in folders for pid in _pids(folder)]
        if not left:
            return
        if time.monotonic() > deadline:
            raise CgroupError(
                errno.EBUSY, f"{len(left)} process(es) outlived SIGKILL in {folders[0]}"
            )
        for folder, pid in left:
            with contextlib.suppress(OSError):
                fd = os.pidfd_open(pid)
                try:
                    if pid in _pids(folder):
                        signal.pidfd_send_signal(fd, signal.SIGKILL)
                finally:
                    os.close(fd)
        time.sleep(0.001)


def _remove(folder: Path) -> None:
    """Remove a cgroup directory and those below it (they must hold no process)."""
    if not folder.is_dir():
        return
    for child in sorted((p for p in folder.iterdir() if p.is_dir()), reverse=True):
        _remove(child)
    with contextlib.suppress(FileNotFoundError):
        _unmake(folder)


# --- where this process's cgroups are ---


@dataclass(frozen=True)
class _Mount:
    root: str  # the cgroup path the mount shows at its mount point
    point: Path
    fstype: str
    options: set[str]


def _mounts(mountinfo: str, fs_root: Path) -> list[_Mount]:
    mounts = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        point = fs_root / fields[4].lstrip("/")
        mounts.append(_Mount(fields[3], point, tail[0], set(tail[2].split(","))))
    return mounts


def _own_groups(proc_cgroup: str) -> tuple[str | None, dict[str, str]]:
    """This process's v2 cgroup path, and its v1 path per controller."""
    unified, v1 = None, {}
    for line in proc_cgroup.splitlines():
        number, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if not path:
            continue
        if number == "0" and controllers == "":
            unified = path
        for name in controllers.split(","):
            if name:
                v1[name] = path
    return unified, v1


def _folder(mount: _Mount, path: str) -> Path | None:
    """The directory of cgroup ``path`` under ``mount``, or None if the mount hides it."""
    root = mount.root.rstrip("/")
    if path != root and not path.startswith(root + "/"):
        return None
    return mount.point / path[len(root) :].lstrip("/")


# --- the tree ---


class CgroupTree:
    """This process's tree of worker cgroups (see the module's docstring)."""

    def __init__(self, mode: Literal["v2", "v1"], bases: dict[str, Path], name: str) -> None:
        self.mode = mode
        # controller -> this tree's directory in that controller's hierarchy (v2: one
        # directory for both).
        self.roots = {c: base / name for c, base in bases.items()}
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self.workers: set[WorkerCgroup] = set()

    @property
    def folders(self) -> list[Path]:
        return sorted(set(self.roots.values()))

    def worker(self, name: str) -> WorkerCgroup:
        with self._lock:
            number = next(self._numbers)
        group = WorkerCgroup(self, f"{number:04d}-{name}"[:100])
        with self._lock:
            self.workers.add(group)
        return group

    def counts(self) -> dict[str, int]:
        """Worker cgroups, and the processes and tasks (threads) in the tree now."""
        pids = self.roots["pids"]
        workers = [p for p in pids.iterdir() if p.is_dir()] if pids.is_dir() else []
        current = pids / "pids.current"

        def tasks() -> int:
            return int(_read(current)) if current.exists() else 0

        # The processes are listed one cgroup at a time while jobs start and end: a count
        # is kept only when the tree's task total was the same before and after it, so the
        # figures describe one moment (a few tries, then the last reading).
        for _ in range(20):
            before = tasks()
            processes = sum(len(_pids(p.parent)) for p in pids.rglob("cgroup.procs"))
            after = tasks()
            if before == after and processes <= after:
                break
        return {"workers": len(workers), "processes": processes, "tasks": after}

    def close(self) -> None:
        with self._lock:
            workers = list(self.workers)
        for group in workers:
            group.remove()
        for folder in self.folders:
            try:
                _remove(folder)
            except OSError as exc:
                log.warning("could not remove the cgroup %s: %s", folder, exc)


class WorkerCgroup:
    """One worker's cgroup, with its ``warm`` and ``job`` sub-cgroups."""

    def __init__(self, tree: CgroupTree, name: str) -> None:
        self.tree = tree
        self.mode = tree.mode
        self.name = name
        self.groups = {c: root / name for c, root in tree.roots.items()}
        self._limits: tuple[int, int] | None = None  # the job limits last written
        self._counters = (0, 0)
        for folder in self.folders:
            try:
                _make(folder)
                if self.mode == "v2":
                    _write(
                        folder / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS)
                    )
                _make(folder / "warm")
                _make(folder / "job")
            except OSError as exc:
                raise CgroupError(exc.errno, f"cannot make the cgroup {folder}: {exc}") from None

    # --- the layout ---

    @property
    def folders(self) -> list[Path]:
        return sorted(set(self.groups.values()))

    def _file(self, controller: str, where: str, name: str) -> Path:
        base = self.groups[controller]
        return base / name if where == "" else base / where / name

    def command(self, command: list[str]) -> list[str]:
        """``command`` started in this worker's ``warm`` cgroup."""
        procs = [str(folder / "warm" / "cgroup.procs") for folder in self.folders]
        return ["/bin/sh", "-c", ENTER, "drill-cgroup", *procs, "--", *command]

    # --- limits ---

    def _set_limits(self, where: str, memory: int, tasks: int) -> None:
        _write(self._file("pids", where, "pids.max"), str(tasks))
        if self.mode == "v2":
            _write(self._file("memory", where, "memory.max"), str(memory))
            swap = self._file("memory", where, "memory.swap.max")
            if swap.exists():  # no swapping out instead of a verdict
                _write(swap, "0")
            if where == "job":  # an out-of-memory kill takes the whole job, never a part
                _write(self._file("memory", where, "memory.oom.group"), "1")
            return
        limit = self._file("memory", where, "memory.limit_in_bytes")
        memsw = self._file("memory", where, "memory.memsw.limit_in_bytes")
        if not memsw.exists():
            _write(limit, str(memory))
            return
        # memory+swap may never be below memory: raise it first, lower it last.
        try:
            _write(limit, str(memory))
            _write(memsw, str(memory))
        except CgroupError:
            _write(memsw, str(memory))
            _write(limit, str(memory))

    def _read_counters(self) -> tuple[int, int]:
        """(out-of-memory kills, refusals at pids.max) of the job cgroup so far."""
        if self.mode == "v2":
            ooms = _keyed(_read(self._file("memory", "job", "memory.events")), "oom_kill")
        else:
            ooms = _keyed(_read(self._file("memory", "job", "memory.oom_control")), "oom_kill")
        refused = _keyed(_read(self._file("pids", "job", "pids.events")), "max")
        return ooms, refused

    # --- jobs ---

    def host_pid(self, sandbox_pid: int) -> int:
        """The pid outside the sandbox of the warm worker's child ``sandbox_pid``."""
        warm = _pids(self.groups["pids"] / "warm")
        for pid in warm:
            # The child's pid in the innermost namespace, and a parent in the warm cgroup
            # too (the worker), which bubblewrap's own process outside has not.
            with contextlib.suppress(OSError, ValueError):
                fields = dict(
                    line.split(":", 1)
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                )
                inner = int(fields["NSpid"].split()[-1])
                if inner == sandbox_pid and int(fields["PPid"]) in warm:
                    return pid
        raise CgroupError(errno.ESRCH, f"{self.name}: no child {sandbox_pid} in the warm cgroup")

    def start_job(self, sandbox_pid: int, memory_bytes: int, tasks: int) -> None:
        """Limit the job cgroup to this job's share and move the spare child into it.

        The cgroup is empty (:meth:`empty_job`), so every count starts from this job."""
        self.limit_job(memory_bytes, tasks)
        self.enter_job(sandbox_pid)

    def enter_job(self, sandbox_pid: int) -> None:
        """Move the spare child into the emptied job cgroup, before its job is written.
        (A move can take milliseconds, the kernel's cgroup lock: a pool makes it between
        jobs, and :meth:`limit_job` sets the job's own share when the job comes.)"""
        pid = self.host_pid(sandbox_pid)
        for folder in self.folders:
            _write(folder / "job" / "cgroup.procs", str(pid))

    def limit_job(self, memory_bytes: int, tasks: int) -> None:
        """The job cgroup's limits for this job's share; its counts start from now."""
        memory = memory_bytes + JOB_MEMORY_MARGIN
        if self._limits != (memory, tasks):
            # The worker's whole: the job plus what the warm worker itself holds.
            self._set_limits("", memory + WARM_MEMORY, tasks + WARM_TASKS)
            self._set_limits("job", memory, tasks)
            self._limits = (memory, tasks)
        self._counters = self._read_counters()

    def job_usage(self) -> JobUsage:
        """What the job's cgroup counted since :meth:`start_job`."""
        ooms, refused = self._read_counters()
        if self.mode == "v2":
            peak_file = self._file("memory", "job", "memory.peak")
        else:
            peak_file = self._file("memory", "job", "memory.max_usage_in_bytes")
        peak = int(_read(peak_file)) if peak_file.exists() else 0
        before_ooms, before_refused = self._counters
        return JobUsage(ooms > before_ooms, refused > before_refused, peak)

    def empty_job(self) -> None:
        """Nothing of the last job is left: every process of the job cgroup is killed and
        gone, its memory (page cache included) given back, its peak reset."""
        job = [folder / "job" for folder in self.folders]
        kill = job[0] / "cgroup.kill"
        if self.mode == "v2" and kill.exists() and _pids(job[0]):
            _write(kill, "1")
        _kill_all(job, EMPTY_TIMEOUT)
        memory = self.groups["memory"] / "job"
        if self.mode == "v2":
            reclaim = memory / "memory.reclaim"
            if reclaim.exists():
                with contextlib.suppress(CgroupError):  # EAGAIN: little left to reclaim
                    _write(reclaim, str(2**40))
            peak = memory / "memory.peak"
            if peak.exists():
                with contextlib.suppress(CgroupError):  # resettable since Linux 6.12
                    _write(peak, "reset")
        else:
            _write(memory / "memory.force_empty", "0")
            _write(memory / "memory.max_usage_in_bytes", "0")

    def remove(self) -> None:
        """Kill what is left in this worker's cgroups and remove them."""
        with contextlib.suppress(CgroupError):
            _kill_all([f / sub for f in self.folders for sub in ("job", "warm")], EMPTY_TIMEOUT)
        for folder in self.folders:
            try:
                _remove(folder)
            except OSError as exc:
                log.warning("could not remove the cgroup %s: %s", folder, exc)
        with self.tree._lock:
            self.tree.workers.discard(self)


# --- finding a usable tree ---


@dataclass(frozen=True)
class _System:
    """Where to look: the real files, or a test's copy of them."""

    proc_self: Path = Path("/proc/self")
    fs_root: Path = Path("/")


def _try_v2(system: _System, name: str) -> tuple[CgroupTree | None, str]:
    unified, _ = _own_groups((system.proc_self / "cgroup").read_text())
    mounts = [
        m
        for m in _mounts((system.proc_self / "mountinfo").read_text(), system.fs_root)
        if m.fstype == "cgroup2"
    ]
    if unified is None or not mounts:
        return None, "no cgroup v2 hierarchy is mounted"
    own = next((f for m in mounts if (f := _folder(m, unified)) is not None), None)
    if own is None:
        return None, f"this process's cgroup v2 {unified} is not visible under any mount"
    available = set(_read(own / "cgroup.controllers").split())
    missing = [c for c in CONTROLLERS if c not in available]
    if missing:
        return (
            None,
            f"cgroup v2 {own} has no {' or '.join(missing)} controller "
            "(bound to v1, or not delegated)",
        )
    enabled = set(_read(own / "cgroup.subtree_control").split())
    try:
        if not set(CONTROLLERS) <= enabled:
            _enable_here(own)
        tree = CgroupTree("v2", {c: own for c in CONTROLLERS}, name)
        root = tree.roots["pids"]
        _make(root)
        _write(root / "cgroup.subtree_control", " ".join(f"+{c}" for c in CONTROLLERS))
        _probe(tree)
    except OSError as exc:
        return None, f"cgroup v2 {own} is not writable here: {exc}"
    return tree, ""


def _enable_here(own: Path) -> None:
    """Enable the controllers for ``own``'s children. A cgroup with processes cannot
    (the "no internal processes" rule): then this process moves itself into a leaf of its
    own first, as nsjail does, when it is the only process there."""
    request = " ".join(f"+{c}" for c in CONTROLLERS)
    try:
        _write(own / "cgroup.subtree_control", request)
        return
    except CgroupError as exc:
        if exc.errno != errno.EBUSY:
            raise
    others = [p for p in _pids(own) if p != os.getpid()]
    if others:
        raise CgroupError(
            errno.EBUSY,
            f"{own} holds {len(others)} other process(es); run Drill in a cgroup of its own",
        )
    leaf = own / f"drill-self-{os.getpid()}"
    if not leaf.is_dir():
        _make(leaf)
    _write(leaf / "cgroup.procs", str(os.getpid()))
    _write(own / "cgroup.subtree_control", request)


def _try_v1(system: _System, name: str) -> tuple[CgroupTree | None, str]:
    _, v1 = _own_groups((system.proc_self / "cgroup").read_text())
    mounts = [
        m
        for m in _mounts((system.proc_self / "mountinfo").read_text(), system.fs_root)
        if m.fstype == "cgroup"
    ]
    bases: dict[str, Path] = {}
    for controller in CONTROLLERS:
        mount = next((m for m in mounts if controller in m.options), None)
        path = v1.get(controller)
        if mount is None or path is None:
            return None, f"the v1 {controller} hierarchy is not mounted"
        folder = _folder(mount, path)
        if folder is None:
            return None, f"this process's v1 {controller} cgroup {path} is not visible"
        bases[controller] = folder
    if len(set(bases.values())) != len(bases):
        return None, "the v1 pids and memory controllers share one hierarchy"
    tree = CgroupTree("v1", bases, name)
    try:
        for folder in tree.folders:
            _make(folder)
        _probe(tree)
    except OSError as exc:
        tree.close()
        return None, f"the v1 pids and memory hierarchies are not writable here: {exc}"
    return tree, ""


def _probe(tree: CgroupTree) -> None:
    """Make one worker cgroup and limit its job: the proof that the tree is usable."""
    group = tree.worker("probe")
    try:
        group._set_limits("job", 64 * 2**20, 8)
        group._read_counters()
    finally:
        group.remove()


def _clean_stale(bases: list[Path]) -> None:
    """Remove the trees of Drill processes that are gone (a crash or a SIGKILL)."""
    for base in bases:
        with contextlib.suppress(OSError):
            for folder in base.iterdir():
                pid = folder.name.removeprefix("drill-")
                if not (folder.is_dir() and pid.isdigit()) or Path(f"/proc/{pid}").exists():
                    continue
                with contextlib.suppress(OSError):
                    _kill_all([p.parent for p in folder.rglob("cgroup.procs")], 1.0)
                    _remove(folder)


def open_tree(
    setting: Setting = "auto", system: _System | None = None
) -> tuple[CgroupTree | None, CgroupStatus]:
    """This process's tree of cgroups as the setting asks: ``auto`` tries v2, then v1;
    ``v2`` or ``v1`` only that one (CgroupError if it cannot be used); ``off`` none."""
    system = system or _System()
    if setting == "off":
        return None, CgroupStatus("none", "turned off by DRILL_CGROUPS=off")
    name = f"drill-{os.getpid()}"
    reasons: list[str] = []
    attempts: list[tuple[str, Callable[[_System, str], tuple[CgroupTree | None, str]]]] = [
        ("v2", _try_v2),
        ("v1", _try_v1),
    ]
    for mode, attempt in attempts:
        if setting not in ("auto", mode):
            continue
        try:
            tree, reason = attempt(system, name)
        except (OSError, ValueError) as exc:
            tree, reason = None, f"cannot read this process's cgroups: {exc}"
        if tree is not None:
            _clean_stale([r.parent for r in tree.folders])
            return tree, CgroupStatus(mode, "; ".join(reasons) or None)  # type: ignore[arg-type]
        reasons.append(reason)
    if setting != "auto":
        raise CgroupError(errno.ENOTSUP, f"DRILL_CGROUPS={setting} but {reasons[-1]}")
    return None, CgroupStatus("none", "; ".join(reasons))


# One tree per process, shared by its pools; removed at exit.
_shared: tuple[CgroupTree | None, CgroupStatus] | None = None
_shared_setting: Setting | None = None
_shared_lock = threading.Lock()


def shared_tree(setting: Setting = "auto") -> tuple[CgroupTree | None, CgroupStatus]:
    """This process's tree (made on first use); the status is logged once."""
    global _shared, _shared_setting
    with _shared_lock:
        if _shared is None or _shared_setting != setting:
            if _shared is not None and _shared[0] is not None and not _shared[0].workers:
                _shared[0].close()
            _shared = open_tree(setting)
            _shared_setting = setting
            tree, status = _shared
            (log.info if tree is not None else log.warning)("%s", status.describe())
            if tree is not None:
                atexit.register(tree.close)
        return _shared


def close_shared() -> None:
    """Remove this process's tree once no worker uses it: called when a backend closes,
    since a server stopped by a signal may end without running atexit handlers."""
    global _shared
    with _shared_lock:
        tree = _shared[0] if _shared is not None else None
        if tree is None or tree.workers:
            return
        tree.close()
        _shared = None


def tree_of(pid: int) -> CgroupTree | None:
    """The tree the Drill process ``pid`` made, seen from another process (the soak
    bench counts what is in it); None when it has none."""
    system = _System(Path(f"/proc/{pid}"))
    try:
        unified, v1 = _own_groups((system.proc_self / "cgroup").read_text())
        mounts = _mounts(Path("/proc/self/mountinfo").read_text(), system.fs_root)
    except OSError:
        return None
    name = f"drill-{pid}"
    bases: dict[str, Path] = {}
    for controller in CONTROLLERS:
        mount = next((m for m in mounts if m.fstype == "cgroup" and controller in m.options), None)
        folder = _folder(mount, v1[controller]) if mount and controller in v1 else None
        if folder is not None and (folder / name).is_dir():
            bases[controller] = folder
    if len(bases) == len(CONTROLLERS):
        return CgroupTree("v1", bases, name)
    for mount in (m for m in mounts if m.fstype == "cgroup2"):
        folder = _folder(mount, unified) if unified is not None else None
        if folder is not None and folder.name == f"drill-self-{pid}":
            folder = folder.parent  # it moved itself into a leaf (_enable_here)
        if folder is not None and (folder / name).is_dir():
            return CgroupTree("v2", {c: folder for c in CONTROLLERS}, name)
    return None
