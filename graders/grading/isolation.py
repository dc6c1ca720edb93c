"""How a worker process is started: inside bubblewrap, or as a plain process.

The bubblewrap sandbox sees a read-only view of the Python installation and of the
package ``graders/sandbox/`` (the test-case API and the harness, one bind mount) and
nothing else: not the exercises, not the database, not the source tree. It has no
network, an empty environment, new user/pid/ipc/uts/cgroup namespaces, no capabilities,
the ``nobody`` user, a new session, and it dies with its parent.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from graders.errors import SandboxUnavailable

if TYPE_CHECKING:
    from graders.grading.catalog import Exercise
    from graders.settings import Settings

SandboxKind = Literal["bwrap", "process"]  # what isolates a job (DRILL_SANDBOX resolved)
# graders/sandbox/ is everything of the project a worker sees: one read-only bind mount
# at the same place below SANDBOX_ROOT, where ``graders`` is then a namespace package.
PROJECT = Path(__file__).resolve().parents[2]
SANDBOX_PACKAGE = PROJECT / "graders" / "sandbox"
SANDBOX_ROOT = "/drill"
# What the JSON of one test's observations may take (strings and numbers, not array
# bytes, which travel in the body); the encoder refuses more with a clear message.
ENCODED_TEXT_BYTES = 4 * 1024 * 1024

# Python started isolated (-I: no user site, no PYTHON* variables, no script dir on
# sys.path), then pointed at the harness folder explicitly.
# The whole environment of a worker. torch needs an existing cache folder name at import.
WORKER_ENV = {
    "OMP_NUM_THREADS": "1",
    # glibc gives each new thread a malloc arena of its own: 64 MiB of address space
    # reserved, which RLIMIT_AS counts as if used. Two arenas serve a job's few threads.
    "MALLOC_ARENA_MAX": "2",
    "MKL_NUM_THREADS": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "TORCHINDUCTOR_CACHE_DIR": "/tmp",
    "HOME": "/nonexistent",
    "PATH": "/usr/bin:/bin",
}
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "import graders.sandbox.worker as w; w.main(sys.argv[2:])"
)


@dataclass(frozen=True)
class JobLimits:
    cpu_seconds: float
    wall_seconds: float
    memory_bytes: int
    output_bytes: int
    result_bytes: int
    processes: int

    @property
    def memory_mb(self) -> int:
        return self.memory_bytes // (1024 * 1024)

    @property
    def raw_output_bytes(self) -> int:
        """Cap on what fd-level writes may put in a test's output capture."""
        return max(self.output_bytes * 16, 1024 * 1024)

    @property
    def result_header_bytes(self) -> int:
        """Largest header of one result frame: a test's output (at most 12 bytes a
        character once JSON-escaped) plus the observations, messages and traceback."""
        return 12 * self.output_bytes + ENCODED_TEXT_BYTES + 1024 * 1024

    def for_child(self) -> dict[str, Any]:
        return {
            "cpu_seconds": max(1, round(self.cpu_seconds)),
            "memory_bytes": self.memory_bytes,
            "output_bytes": self.output_bytes,
            "raw_output_bytes": self.raw_output_bytes,
            "result_bytes": self.result_bytes,
            "text_bytes": ENCODED_TEXT_BYTES,
            "processes": self.processes,
        }


def job_limits(settings: Settings, exercise: Exercise | None = None) -> JobLimits:
    """The limits of a learner's job: the settings', or the exercise's own."""
    s = settings
    own = exercise.meta.limits if exercise else None
    return JobLimits(
        cpu_seconds=(own.cpu_seconds if own and own.cpu_seconds else s.cpu_seconds),
        wall_seconds=(own.wall_seconds if own and own.wall_seconds else s.wall_seconds),
        memory_bytes=(own.memory_mb if own and own.memory_mb else s.memory_mb) * 2**20,
        output_bytes=s.output_bytes,
        result_bytes=s.result_mb * 2**20,
        processes=s.processes,
    )


def reference_limits(settings: Settings) -> JobLimits:
    """A reference's job: more time and memory (it runs every test twice, once)."""
    base = job_limits(settings)
    return JobLimits(
        30,
        120,
        max(base.memory_bytes, 2 * 2**30),
        base.output_bytes,
        base.result_bytes,
        base.processes,
    )


def find_bwrap(path: str = "bwrap") -> str | None:
    return shutil.which(path)


def _python_roots() -> list[str]:
    """Folders the worker's Python needs: the interpreter's prefix and the venv."""
    roots = {sys.base_prefix, sys.prefix, sysconfig.get_paths()["purelib"]}
    real = Path(sys.executable).resolve().parent.parent
    roots.add(str(real))
    ordered = sorted({str(Path(r).resolve()) for r in roots if r})
    # Drop folders already inside another one.
    return [r for r in ordered if not any(r != o and r.startswith(o + "/") for o in ordered)]


def worker_command(
    kind: SandboxKind, ctrl_fd: int, bwrap: str | None = None, role: str = "learner"
) -> list[str]:
    """The command of a worker; ``role`` (learner or reference) only labels the process."""
    python = sys.executable
    if kind == "process":
        return [python, "-I", "-c", BOOT, str(PROJECT), str(ctrl_fd), "process", role]
    if bwrap is None:
        raise SandboxUnavailable("bubblewrap (bwrap) is not installed")
    # fmt: off
    args = [
        bwrap,
        "--unshare-all",  # user, pid, net, ipc, uts, cgroup
        "--die-with-parent",
        # The worker itself is pid 1: bubblewrap's own init would be a dumpable process,
        # outside seccomp, whose /proc/1/mem a job could open and rewrite (found by the
        # attack suite: tests/security/attacks/leak_worker_memory.py).
        "--as-pid-1",
        "--new-session",
        "--clearenv",
        "--uid", "65534",
        "--gid", "65534",
        "--cap-drop", "ALL",
        "--hostname", "sandbox",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/bin", "/bin",
        "--proc", "/proc",
        # The sandbox user is the server's user outside; when that is root, the kernel's
        # sysctl permission check (euid 0) lets a job write global knobs such as
        # kernel.core_pattern. Hide /proc/sys (leak_proc_sys_write.py).
        "--tmpfs", "/proc/sys",
        "--dev", "/dev",
        "--tmpfs", "/dev/shm",
        "--tmpfs", "/tmp",
    ]
    # fmt: on
    for name, value in WORKER_ENV.items():
        args += ["--setenv", name, value]
    for root in _python_roots():
        if not root.startswith("/usr/"):
            args += ["--ro-bind", root, root]
    args += ["--ro-bind", str(SANDBOX_PACKAGE), f"{SANDBOX_ROOT}/graders/sandbox"]
    # Empty, read-only scratch folders: nothing can be planted for the next job. They are
    # made read-only last, so that the binds above may sit below them (a venv in /tmp).
    # /dev is a tmpfs shared by every job of a worker: read-only too, or a job could plant
    # files for the next one or fill host memory (persist_files_plant.py,
    # memory_dev_tmpfs_fill.py).
    args += ["--remount-ro", "/dev/shm", "--remount-ro", "/tmp", "--remount-ro", "/dev"]
    # /proc read-only: nothing under it is writable from a job, by construction. A job is a
    # fork of the worker, in its session and of its user: through /proc/self/autogroup
    # it set the nice value of the worker's whole session, and through /proc/1 the
    # worker's oom_score_adj, comm, timer slack..., all inherited by every later job
    # (poison_proc_writes.py walks every file with a write bit and lists them).
    args += ["--remount-ro", "/proc/sys", "--remount-ro", "/proc", "--remount-ro", "/"]
    args += ["--chdir", "/"]
    args += [python, "-I", "-c", BOOT, SANDBOX_ROOT, str(ctrl_fd), "bwrap", role]
    return args


def bwrap_works(bwrap: str) -> str | None:
    """Try a trivial sandbox; return None if it works, else the reason it does not."""
    try:
        result = subprocess.run(
            [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if result.returncode != 0:
        return result.stderr.decode(errors="replace").strip() or f"exit {result.returncode}"
    return None
