"""The job cgroups on this machine's kernel: emptied and reset between jobs, removed at the
end. (What their limits stop, through the service, is in tests/security/test_attacks.py:
memory_fd_hoard.py, proc_thread_bomb_small_stacks.py, proc_threads_outlive_entry.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graders.grading import cgroups
from graders.grading.grader import Grader
from graders.settings import ROOT
from tests.conftest import make_settings
from tests.program_output import last_json_line

pytestmark = pytest.mark.sandbox

TEST_EXERCISES = ROOT / "tests" / "graders" / "exercises"
MIB = 2**20


@pytest.fixture
def tree() -> cgroups.CgroupTree:
    tree, status = cgroups.shared_tree("auto")
    if tree is None:
        if os.geteuid() == 0:  # CI runs as root, where this machine's cgroups are usable
            pytest.fail(f"no usable cgroups as root: {status.reason}")
        pytest.skip(f"no cgroup this user may write: {status.reason}")
    return tree


def usage(group: cgroups.WorkerCgroup) -> int:
    """The job cgroup's memory now, in bytes."""
    folder = group.groups["memory"] / "job"
    name = "memory.current" if group.mode == "v2" else "memory.usage_in_bytes"
    return int((folder / name).read_text())


def move(group: cgroups.WorkerCgroup, pid: int, where: str = "job") -> None:
    for folder in group.folders:
        (folder / where / "cgroup.procs").write_text(str(pid))


@pytest.fixture
def group(tree: cgroups.CgroupTree) -> Iterator[cgroups.WorkerCgroup]:
    group = tree.worker("test")
    group._set_limits("job", 512 * MIB, 64)
    yield group
    group.remove()


def test_emptying_a_job_cgroup_kills_what_is_left_and_gives_its_memory_back(
    group: cgroups.WorkerCgroup, tmp_path: Path
) -> None:
    """What one job left (a process, its memory, the page cache of what it read) neither
    runs nor counts against the next job."""
    data = tmp_path / "data.bin"
    data.write_bytes(os.urandom(32 * MIB))
    with open(data, "rb") as file:  # out of the page cache: the read below brings it back
        os.fsync(file.fileno())
        os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    program = (
        "import sys, time\n"
        "sys.stdin.readline()\n"
        "held = bytearray(64 << 20)\n"
        f"open({str(data)!r}, 'rb').read()\n"
        "print('ready', flush=True)\n"
        "time.sleep(120)\n"
    )
    left = subprocess.Popen(
        [sys.executable, "-c", program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert left.stdin is not None and left.stdout is not None
    try:
        move(group, left.pid)
        left.stdin.write("go\n")
        left.stdin.flush()
        assert left.stdout.readline() == "ready\n"
        assert usage(group) > 64 * MIB  # its memory and the page cache are the job's
        group.empty_job()
        assert left.wait(timeout=10) == -9
        assert usage(group) < 4 * MIB, usage(group)
        assert group.job_usage().peak_bytes < 4 * MIB  # the peak starts again too
        assert (group.groups["pids"] / "job" / "cgroup.procs").read_text() == ""
    finally:
        left.kill()
        left.wait()


def test_a_pool_empties_the_job_cgroup_before_each_job(tmp_path: Path) -> None:
    """A process left in a worker's job cgroup when a job ends is dead before the worker
    takes the next job: that job (in the process backend, where it sees this machine's
    processes) finds it a zombie. The pool empties the cgroup as soon as the job has
    ended, in the background; the stray is put there at that moment, as if the job had
    left it (a job's own processes are refused by seccomp)."""
    settings = make_settings(tmp_path / "var", TEST_EXERCISES, sandbox="process", workers=1)
    stray = subprocess.Popen(["sleep", "120"])
    code = (
        "def double(x):\n"
        f"    state = open('/proc/{stray.pid}/stat').read().rsplit(')', 1)[1].split()[0]\n"
        "    print('STATE', state)\n"
        "    return x * 2\n"
    )
    passing = "def double(x):\n    return x * 2\n"
    try:
        with Grader(settings) as grader:
            assert grader.status.cgroups in ("v1", "v2"), grader.status
            grader.grade(grader.catalog.get("double"), "numpy", passing, "run")
            pool = grader.local.pool
            assert pool is not None
            (worker,) = pool._all
            assert worker.cgroup is not None
            cgroup = worker.cgroup
            deadline = time.monotonic() + 30
            while pool._idle.qsize() < 1:  # back in the pool: the job cgroup was emptied
                assert time.monotonic() < deadline, "the worker never came back"
                time.sleep(0.01)
            prepare = worker.prepare

            def left_by_the_job() -> None:
                move(cgroup, stray.pid)
                prepare()

            worker.prepare = left_by_the_job  # type: ignore[method-assign]
            grader.grade(grader.catalog.get("double"), "numpy", passing, "run")
            result = grader.grade(grader.catalog.get("double"), "numpy", code, "run")
        assert result.status == "pass", result
        assert "STATE Z" in result.tests[0].output, result.tests[0].output
    finally:
        stray.kill()
        stray.wait()


# In a fresh interpreter: the suite's own process may hold other graders' workers.
CLOSE_PROGRAM = """
import json, os, sys
from pathlib import Path
from graders.grading import cgroups
from graders.grading.grader import Grader
from tests.conftest import make_settings

var, exercises = map(Path, sys.argv[1:3])
with Grader(make_settings(var, exercises, workers=1)) as grader:
    tree = cgroups.tree_of(os.getpid())
    during = {
        "status": grader.status.cgroups,
        "workers": tree.counts()["workers"] if tree else None,
        "folders": [str(folder) for folder in tree.folders] if tree else [],
    }
after = cgroups.tree_of(os.getpid())
print(json.dumps({**during, "after": None if after is None else [str(f) for f in after.folders]}))
"""


def test_a_closed_grader_leaves_no_cgroup_behind(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", exercises / "double")
    done = subprocess.run(
        [sys.executable, "-c", CLOSE_PROGRAM, str(tmp_path / "var"), str(exercises)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    seen = last_json_line(done, "the closing grader's report")
    assert seen["status"] in ("v1", "v2"), seen
    assert seen["workers"] == 1, seen
    assert seen["folders"], seen
    assert not any(Path(folder).exists() for folder in seen["folders"]), seen
    assert seen["after"] is None, seen
