"""Which cgroups Drill finds usable, and what it writes there (graders/grading/cgroups.py).

A fake kernel stands in for the cgroup file systems: a temporary folder where making a
directory makes the control files a kernel would, and mount and membership tables written
by the test. It shows the choice between v2, v1 and none on machines unlike this one; the
real kernel's behaviour (limits enforced, a job cgroup emptied) is in
test_cgroup_limits.py.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from graders.grading import cgroups
from graders.grading.local import _outside_job_cgroup
from graders.sandbox.worker import in_job_cgroup

V2_FILES = {
    "cgroup.procs": "",
    "cgroup.subtree_control": "",
    "cgroup.kill": "",
    "pids.max": "max\n",
    "pids.current": "0\n",
    "pids.events": "max 0\n",
    "memory.max": "max\n",
    "memory.swap.max": "max\n",
    "memory.oom.group": "0\n",
    "memory.events": "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n",
    "memory.peak": "0\n",
    "memory.reclaim": "",
}
V1_FILES = {
    "pids": {
        "cgroup.procs": "",
        "tasks": "",
        "pids.max": "max\n",
        "pids.current": "0\n",
        "pids.events": "max 0\n",
    },
    "memory": {
        "cgroup.procs": "",
        "tasks": "",
        "memory.limit_in_bytes": "9223372036854771712\n",
        "memory.memsw.limit_in_bytes": "9223372036854771712\n",
        "memory.oom_control": "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n",
        "memory.max_usage_in_bytes": "0\n",
        "memory.force_empty": "",
    },
}


class FakeKernel:
    """Cgroup file systems under ``root``, mounted as a machine's /proc/self/mountinfo says."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "proc").mkdir()
        self.mounts: list[str] = []
        self.membership: list[str] = []
        self.controllers_v2 = "cpu io memory pids"

    def system(self) -> cgroups._System:
        (self.root / "proc" / "cgroup").write_text("\n".join(self.membership) + "\n")
        (self.root / "proc" / "mountinfo").write_text("\n".join(self.mounts) + "\n")
        return cgroups._System(proc_self=self.root / "proc", fs_root=self.root)

    def mount_v2(self, point: str, own: str) -> Path:
        n = len(self.mounts) + 30
        self.mounts.append(f"{n} 1 0:{n} / {point} rw,relatime - cgroup2 cgroup2 rw")
        self.membership.append(f"0::{own}")
        folder = self.root / point.lstrip("/") / own.lstrip("/")
        folder.mkdir(parents=True)
        self.fill(folder, "v2")
        (folder / "cgroup.controllers").write_text(self.controllers_v2 + "\n")
        return folder

    def mount_v1(self, controller: str, point: str, own: str, mount_root: str = "/") -> Path:
        n = len(self.mounts) + 30
        line = f"{n} 1 0:{n} {mount_root} {point} rw,relatime - cgroup cgroup rw,{controller}"
        self.mounts.append(line)
        self.membership.insert(0, f"{len(self.membership) + 1}:{controller}:{own}")
        relative = own[len(mount_root.rstrip("/")) :].lstrip("/")
        folder = self.root / point.lstrip("/") / relative
        folder.mkdir(parents=True, exist_ok=True)
        self.fill(folder, controller)
        return folder

    def fill(self, folder: Path, kind: str) -> None:
        files = V2_FILES if kind == "v2" else V1_FILES[kind]
        for name, text in files.items():
            if not (folder / name).exists():
                (folder / name).write_text(text)

    def make(self, folder: Path) -> None:
        """What mkdir in a cgroup file system does: a directory with its control files."""
        folder.mkdir()
        kind = self.kind_of(folder)
        self.fill(folder, kind)
        if kind == "v2":
            enabled = (folder.parent / "cgroup.subtree_control").read_text().split()
            names = " ".join(c.lstrip("+") for c in enabled)
            (folder / "cgroup.controllers").write_text(names + "\n")

    def kind_of(self, folder: Path) -> str:
        for line in self.mounts:
            point = line.split()[4]
            if str(folder).startswith(str(self.root / point.lstrip("/")) + "/"):
                fstype, options = line.split(" - ")[1].split()[0], line.split()[-1]
                if fstype == "cgroup2":
                    return "v2"
                return "pids" if "pids" in options.split(",") else "memory"
        raise AssertionError(f"{folder} is on no cgroup mount")


@pytest.fixture
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeKernel]:
    fake = FakeKernel(tmp_path)
    monkeypatch.setattr(cgroups, "_make", fake.make)
    monkeypatch.setattr(cgroups, "_unmake", shutil.rmtree)
    yield fake


def hybrid(kernel: FakeKernel, v2_controllers: str = "hugetlb") -> tuple[Path, Path]:
    """This machine's layout: v1 pids and memory, a v2 mount with neither."""
    kernel.controllers_v2 = v2_controllers
    kernel.mount_v2("/sys/fs/cgroup/unified", "/")
    pids = kernel.mount_v1("pids", "/sys/fs/cgroup/pids", "/")
    memory = kernel.mount_v1("memory", "/sys/fs/cgroup/memory", "/process_api/abc")
    return pids, memory


# --- the choice ---


def test_v1_when_the_v2_hierarchy_lacks_the_controllers(kernel: FakeKernel) -> None:
    pids, memory = hybrid(kernel)
    tree, status = cgroups.open_tree("auto", kernel.system())
    assert tree is not None and status.mode == "v1"
    assert status.reason is not None and "no pids or memory controller" in status.reason
    name = f"drill-{os.getpid()}"
    assert tree.roots == {"pids": pids / name, "memory": memory / name}
    assert (pids / name).is_dir() and (memory / name).is_dir()
    # The probe worker that proved the tree writable is gone again.
    assert [p.name for p in (pids / name).iterdir() if p.is_dir()] == []
    assert "cgroups: v1, a cgroup per worker and per job" in status.describe()


def test_v2_where_a_delegated_subtree_takes_the_controllers(kernel: FakeKernel) -> None:
    own = kernel.mount_v2("/sys/fs/cgroup", "/user.slice/drill.service")
    kernel.mount_v1("pids", "/sys/fs/cgroup-v1/pids", "/")
    tree, status = cgroups.open_tree("auto", kernel.system())
    assert tree is not None and status.mode == "v2" and status.reason is None
    root = own / f"drill-{os.getpid()}"
    assert tree.roots == {"pids": root, "memory": root}
    assert (own / "cgroup.subtree_control").read_text() == "+pids +memory"
    assert (root / "cgroup.subtree_control").read_text() == "+pids +memory"


def test_v2_moves_this_process_into_a_leaf_when_its_cgroup_must_give_up_processes(
    kernel: FakeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The "no internal processes" rule: a cgroup with processes cannot enable controllers
    for its children. Alone in it, Drill moves into a leaf of its own (as nsjail does)."""
    own = kernel.mount_v2("/sys/fs/cgroup", "/drill.service")
    (own / "cgroup.procs").write_text(f"{os.getpid()}\n")
    refused: list[Path] = []
    real_write = cgroups._write

    def write(path: Path, value: str) -> None:
        if path == own / "cgroup.subtree_control" and not refused:
            refused.append(path)
            raise cgroups.CgroupError(errno.EBUSY, "busy")
        real_write(path, value)

    monkeypatch.setattr(cgroups, "_write", write)
    tree, status = cgroups.open_tree("auto", kernel.system())
    assert refused and tree is not None and status.mode == "v2"
    leaf = own / f"drill-self-{os.getpid()}"
    assert (leaf / "cgroup.procs").read_text() == str(os.getpid())


def test_v2_is_given_up_when_other_processes_share_the_cgroup(
    kernel: FakeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = kernel.mount_v2("/sys/fs/cgroup", "/shared")
    (own / "cgroup.procs").write_text(f"{os.getpid()}\n1\n")
    real_write = cgroups._write

    def write(path: Path, value: str) -> None:
        if path == own / "cgroup.subtree_control":
            raise cgroups.CgroupError(errno.EBUSY, "busy")
        real_write(path, value)

    monkeypatch.setattr(cgroups, "_write", write)
    tree, status = cgroups.open_tree("auto", kernel.system())
    assert tree is None and status.mode == "none"
    assert status.reason is not None and "holds 1 other process(es)" in status.reason
    assert not (own / f"drill-self-{os.getpid()}").exists()


def test_none_when_nothing_is_writable_says_why(
    kernel: FakeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    hybrid(kernel, v2_controllers="memory pids")

    def refuse(folder: Path) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", str(folder))

    monkeypatch.setattr(cgroups, "_make", refuse)
    tree, status = cgroups.open_tree("auto", kernel.system())
    assert tree is None and status.mode == "none"
    assert status.reason is not None
    assert "cgroup v2" in status.reason and "not writable" in status.reason
    assert "v1 pids and memory hierarchies are not writable" in status.reason
    assert "resource limits alone bound a job" in status.describe()


def test_none_when_no_cgroup_file_system_is_mounted(kernel: FakeKernel) -> None:
    tree, status = cgroups.open_tree("auto", kernel.system())
    assert tree is None and status.mode == "none"
    assert "no cgroup v2 hierarchy is mounted" in (status.reason or "")


def test_a_cgroup_outside_the_mounts_root_is_not_used(kernel: FakeKernel) -> None:
    """A container may mount a hierarchy from below the process's own cgroup."""
    kernel.mount_v1("pids", "/sys/fs/cgroup/pids", "/docker/x/y", mount_root="/docker/x")
    kernel.membership = ["2:pids:/elsewhere", "1:memory:/elsewhere"]
    kernel.mounts.append("40 1 0:40 /docker/x /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory")
    with pytest.raises(cgroups.CgroupError, match="cgroup /elsewhere is not visible"):
        cgroups.open_tree("v1", kernel.system())


def test_off_and_an_unusable_requested_kind(kernel: FakeKernel) -> None:
    hybrid(kernel)
    tree, status = cgroups.open_tree("off", kernel.system())
    assert tree is None and status.mode == "none" and "DRILL_CGROUPS=off" in (status.reason or "")
    with pytest.raises(cgroups.CgroupError, match="DRILL_CGROUPS=v2 but cgroup v2"):
        cgroups.open_tree("v2", kernel.system())
    tree, status = cgroups.open_tree("v1", kernel.system())
    assert tree is not None and status.mode == "v1"
    tree.close()


# --- what a worker's cgroup writes ---


@pytest.fixture
def spare() -> Iterator[tuple[int, int]]:
    """A shell (the 'worker') and its child (the 'spare'): real processes to look up."""
    shell = subprocess.Popen(["sh", "-c", "sleep 60 & echo $!; wait"], stdout=subprocess.PIPE)
    assert shell.stdout is not None
    child = int(shell.stdout.readline())
    yield shell.pid, child
    os.kill(child, 9)
    shell.wait()


def test_a_job_gets_its_limits_and_its_child_moves_into_the_job_cgroup(
    kernel: FakeKernel, spare: tuple[int, int]
) -> None:
    own = kernel.mount_v2("/sys/fs/cgroup", "/drill.service")
    tree, _ = cgroups.open_tree("v2", kernel.system())
    assert tree is not None
    group = tree.worker("learner-worker-1")
    folder = own / f"drill-{os.getpid()}" / group.name
    assert group.name.endswith("-learner-worker-1")
    command = group.command(["bwrap", "--die-with-parent"])
    assert command == [
        "/bin/sh",
        "-c",
        cgroups.ENTER,
        "drill-cgroup",
        str(folder / "warm" / "cgroup.procs"),
        "--",
        "bwrap",
        "--die-with-parent",
    ]
    worker, child = spare
    (folder / "warm" / "cgroup.procs").write_text(f"{worker}\n{child}\n")
    group.start_job(child, 512 * 2**20, 64)
    margin = cgroups.JOB_MEMORY_MARGIN
    assert (folder / "job" / "cgroup.procs").read_text() == str(child)
    assert (folder / "job" / "pids.max").read_text() == "64"
    assert (folder / "job" / "memory.max").read_text() == str(512 * 2**20 + margin)
    assert (folder / "job" / "memory.swap.max").read_text() == "0"
    assert (folder / "job" / "memory.oom.group").read_text() == "1"
    assert (folder / "pids.max").read_text() == str(64 + cgroups.WARM_TASKS)
    assert (folder / "memory.max").read_text() == str(512 * 2**20 + margin + cgroups.WARM_MEMORY)
    assert group.job_usage() == cgroups.JobUsage(False, False, 0)
    # The kernel counts a kill at the memory limit and a refusal at pids.max.
    (folder / "job" / "memory.events").write_text("max 3\noom 1\noom_kill 1\n")
    (folder / "job" / "pids.events").write_text("max 2\n")
    (folder / "job" / "memory.peak").write_text("1234\n")
    assert group.job_usage() == cgroups.JobUsage(True, True, 1234)
    # The next job counts from where the last one left off.
    group.start_job(child, 512 * 2**20, 64)
    assert group.job_usage() == cgroups.JobUsage(False, False, 1234)
    with pytest.raises(cgroups.CgroupError, match="no child 1 in the warm cgroup"):
        group.start_job(1, 512 * 2**20, 64)
    (folder / "job" / "cgroup.procs").write_text("")
    (folder / "warm" / "cgroup.procs").write_text("")
    tree.close()


def test_the_spare_is_found_by_its_pid_inside_the_sandbox_not_by_a_number_alone(
    kernel: FakeKernel, spare: tuple[int, int]
) -> None:
    """bubblewrap's own process outside the sandbox may by chance have the pid the child
    has inside; only a process whose parent is in the warm cgroup too is the child."""
    own = kernel.mount_v2("/sys/fs/cgroup", "/drill.service")
    tree, _ = cgroups.open_tree("v2", kernel.system())
    assert tree is not None
    group = tree.worker("w")
    folder = own / f"drill-{os.getpid()}" / group.name
    worker, child = spare
    (folder / "warm" / "cgroup.procs").write_text(f"{worker}\n")  # the parent is not there
    with pytest.raises(cgroups.CgroupError):
        group.host_pid(worker)
    (folder / "warm" / "cgroup.procs").write_text(f"{worker}\n{child}\n")
    assert group.host_pid(child) == child
    (folder / "warm" / "cgroup.procs").write_text("")
    tree.close()


def test_v1_limits_raise_memory_and_swap_in_the_order_the_kernel_accepts(
    kernel: FakeKernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memory+swap may never be set below memory: lowering writes memory first, raising
    writes memory+swap first."""
    _, memory = hybrid(kernel)
    tree, _ = cgroups.open_tree("v1", kernel.system())
    assert tree is not None
    group = tree.worker("w")
    job = memory / f"drill-{os.getpid()}" / group.name / "job"
    written: list[str] = []
    real_write = cgroups._write

    def write(path: Path, value: str) -> None:
        if path.parent == job and path.name.startswith("memory."):
            limit = int((job / "memory.limit_in_bytes").read_text())
            memsw = int((job / "memory.memsw.limit_in_bytes").read_text())
            if path.name == "memory.limit_in_bytes" and int(value) > memsw:
                raise cgroups.CgroupError(errno.EINVAL, "above memsw")
            if path.name == "memory.memsw.limit_in_bytes" and int(value) < limit:
                raise cgroups.CgroupError(errno.EINVAL, "below memory")
            written.append(path.name)
        real_write(path, value)

    monkeypatch.setattr(cgroups, "_write", write)
    group._set_limits("job", 100, 8)
    assert written == ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
    written.clear()
    group._set_limits("job", 200, 8)
    assert written == ["memory.memsw.limit_in_bytes", "memory.limit_in_bytes"]
    assert (job / "memory.limit_in_bytes").read_text() == "200"
    tree.close()


# --- where a job runs, as the job and the self-check see it ---


@pytest.mark.parametrize(
    ("own", "expected"),
    [
        ("4:memory:/../job\n8:pids:/../job\n0::/\n", True),  # v1, in bubblewrap's namespace
        ("8:pids:/x/drill-9/0001-w/job\n4:memory:/x/drill-9/0001-w/job\n", True),
        ("8:pids:/x/drill-9/0001-w/job\n4:memory:/x/drill-9/0001-w/warm\n", False),
        ("4:memory:/../job\n", False),
        ("0::/../job\n", True),  # v2: one hierarchy, both controllers
        ("0::/\n", False),
        ("", False),
        ("8:pids,memory:/a/jobs\n", False),
    ],
)
def test_a_child_knows_whether_it_runs_in_a_job_cgroup(own: str, expected: bool) -> None:
    assert in_job_cgroup(own) is expected


def test_the_self_check_names_a_job_outside_its_cgroup() -> None:
    assert _outside_job_cgroup("v1", "8:pids:/../job\n4:memory:/../job\n") == []
    assert _outside_job_cgroup("v1", "8:pids:/../job\n4:memory:/../warm\n") == [
        "a job runs outside its memory cgroup (/../warm)"
    ]
    assert _outside_job_cgroup("v2", "0::/../job\n") == []
    assert _outside_job_cgroup("v2", None) == [
        "a job runs outside its cgroup v2 cgroup (not listed)"
    ]
