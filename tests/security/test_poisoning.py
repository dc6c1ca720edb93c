"""Poisoning: a submission that changes its warm worker, or outlives its result, to harm the
learners graded after it on that worker.

Each ``attacks/poison_*.py`` program returns the right answer for ``double`` while it tries
to change the worker (its resource limits, nice value, CPU affinity, scheduling policy, I/O
priority, process group: everything a child inherits from it) or to stay alive after its
result. It reports in ``found`` every attempt that got through; there must be none. After
it, correct solutions are graded at least 10 times on each of the two workers: every one
must pass 2/2, be answered well under the 3 s grace the server gives a killed child, and
land on the same two workers as before (no worker had to be replaced: the sandbox refused
the attack outright). A correct solution that needs 64 MiB must pass on both workers too.

The second part proves the worker's own guard, by doing from outside what seccomp stops a
job from doing: the test (the server's user) changes a worker's limits, priority,
affinity, scheduling or I/O priority. The worker must notice before it forks its next
child, report itself ``tainted`` with the reason (in the server's log), and be replaced,
while every job still passes on the first try.
"""

from __future__ import annotations

import ctypes
import os
import re
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.security.test_attacks import (
    ATTACKS_DIR,
    HEALTH_TIMEOUT,
    Target,
    _TargetFactory,
    check_verdict,
    describe,
    parse_expect,
    report,
)
from tests.serving import descendants

pytestmark = pytest.mark.sandbox

POISONS = sorted(ATTACKS_DIR.glob("poison_*.py"))
PER_WORKER = 10  # correct submissions each worker must grade after an attack
WORKERS = 2
QUICK = 2.0  # seconds; the server waits KILL_GRACE = 3 s for a child that will not end

# What a job inherits from its worker and could not set back itself: it must be the same
# in every job, before and after an attack. (The CPU, address-space and data limits depend
# on what the warm-up used and the harness sets them per job; the data limit must never be
# tighter than the address space.)
STATE = """\
import ctypes
import json
import os
import resource


def worker():
    # Which worker: its pid namespace (whose number a later namespace may reuse) and when
    # its pid 1, the warm worker, started.
    with open("/proc/1/stat") as stat:
        started = stat.read().rsplit(")", 1)[1].split()[19]
    return os.readlink("/proc/self/ns/pid") + "@" + started


def proc_value(name):
    with open("/proc/self/" + name) as file:
        return file.read().strip()


def state():
    libc = ctypes.CDLL(None, use_errno=True)
    limits = {
        name: resource.getrlimit(getattr(resource, name))
        for name in dir(resource)
        if name.startswith("RLIMIT_")
        and name not in ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA")
    }
    return {
        "worker": worker(),
        "nice": os.getpriority(os.PRIO_PROCESS, 0),
        "affinity": sorted(os.sched_getaffinity(0)),
        "scheduler": os.sched_getscheduler(0),
        "ioprio": libc.syscall(252, 1, 0),
        # The session's autogroup (its nice value; the group itself is per worker) and
        # the OOM score adjustment, both settable through /proc (poison_proc_writes.py).
        "autogroup_nice": proc_value("autogroup").rsplit("nice", 1)[1].strip(),
        "oom_score_adj": proc_value("oom_score_adj"),
        "limits": limits,
        "data_tighter_than_address_space": (
            resource.getrlimit(resource.RLIMIT_DATA)[0]
            < resource.getrlimit(resource.RLIMIT_AS)[0]
        ),
    }
"""
# The known-correct solution, reporting which worker graded it and what it inherited.
GOOD = (
    STATE
    + """

def double(x):
    print("WORKER " + json.dumps(state()))
    return x * 2
"""
)
# A correct solution that needs 64 MiB (every page written): a lowered RLIMIT_DATA, or
# any inherited memory limit, would turn it into a memory-limit verdict.
BIG = (
    STATE
    + """
import numpy as np


def double(x):
    block = np.ones(64 * 2**20 // 8)
    assert block.sum() == block.size
    print("WORKER " + json.dumps(state()))
    return x * 2
"""
)


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """A `drill serve` of its own (bubblewrap, 2 workers): its log is read by the tests."""
    with _TargetFactory(tmp_path_factory) as factory:
        yield factory["bwrap"]


def grade(target: Target, code: str) -> tuple[dict[str, Any], float]:
    """Submit a correct solution; it must pass 2/2. Returns what it reported, and how long
    the server took to grade it (its ``duration_ms``, which holds any wait for a lingering
    child's exit, but not the time the request spent reaching it on a loaded machine)."""
    result = target.submit(code)
    elapsed = float(result["duration_ms"]) / 1000
    assert (result["status"], result["passed"], result["total"]) == ("pass", 2, 2), describe(result)
    assert all(t["status"] == "pass" for t in result["tests"]), describe(result)
    return report(result, "WORKER"), elapsed


def inherited(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "worker"}


def current_workers(target: Target) -> tuple[set[str], dict[str, Any]]:
    """The two workers (sequential jobs alternate between idle workers), and what a job
    inherits on them (the same on both)."""
    wait_for_full_pool(target)
    seen: set[str] = set()
    states = []
    for _ in range(8):
        state, _ = grade(target, GOOD)
        seen.add(state["worker"])
        states.append(inherited(state))
        if len(seen) == WORKERS:
            assert all(s == states[0] for s in states), states
            return seen, states[0]
    raise AssertionError(f"the jobs went to {seen} only")


def grade_on_every_worker(target: Target, clean: dict[str, Any]) -> Counter[str]:
    """Correct solutions until each of two workers graded PER_WORKER of them, then the
    64 MiB one on each: every one passes quickly and inherited what a job inherits on a
    clean worker. Returns the number of jobs per worker."""
    per_worker: Counter[str] = Counter()
    slow: list[float] = []
    for _ in range(4 * PER_WORKER * WORKERS):
        state, elapsed = grade(target, GOOD)
        per_worker[state["worker"]] += 1
        assert inherited(state) == clean, f"a job inherited {inherited(state)}, not {clean}"
        if elapsed >= QUICK:
            slow.append(round(elapsed, 2))
        if sum(n >= PER_WORKER for n in per_worker.values()) >= WORKERS:
            break
    big: set[str] = set()
    for _ in range(4 * WORKERS):
        state, elapsed = grade(target, BIG)
        big.add(state["worker"])
        assert inherited(state) == clean, f"a job inherited {inherited(state)}, not {clean}"
        if elapsed >= QUICK:
            slow.append(round(elapsed, 2))
        if len(big) >= WORKERS:
            break
    assert not slow, f"submissions after the attack waited: {slow} s"
    assert sum(n >= PER_WORKER for n in per_worker.values()) >= WORKERS, per_worker
    assert len(big) >= WORKERS, big
    return per_worker


def wait_for_full_pool(target: Target) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while target.health()["workers"] != WORKERS:
        assert time.monotonic() < deadline, f"the pool did not recover: {target.health()}"
        time.sleep(0.2)


def test_every_poisoning_program_is_here() -> None:
    names = {p.stem for p in POISONS}
    assert {
        "poison_prlimit_fsize_worker",
        "poison_rlimit_data_worker",
        "poison_nice",
        "poison_affinity",
        "poison_sched_idle",
        "poison_ioprio",
        "poison_pid_syscalls",
        "poison_linger_after_result",
        "poison_proc_writes",
    } <= names


@pytest.mark.parametrize("path", POISONS, ids=[p.name for p in POISONS])
def test_poisoning_does_not_reach_the_next_learners(target: Target, path: Path) -> None:
    before, clean = current_workers(target)
    expect = parse_expect(path)
    result = target.submit(target.code(path))
    check_verdict(path, expect, result)
    got = report(result)
    assert got["found"] == [], f"{path.name} got through: {got['found']}"
    assert got["tried"] >= int(expect.get("min_tried", "1")), got
    per_worker = grade_on_every_worker(target, clean)
    # Nothing was replaced: the attack was refused, not cleaned up after.
    assert set(per_worker) == before, (before, per_worker)
    assert target.health()["workers"] == WORKERS


# --- the worker's own guard, proven by changing a worker from outside ---


def _ioprio_idle(pid: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    idle = 3 << 13  # IOPRIO_CLASS_IDLE, level 0
    if libc.syscall(251, 1, pid, idle) != 0:  # ioprio_set(IOPRIO_WHO_PROCESS, pid, idle)
        raise OSError(ctypes.get_errno(), "ioprio_set failed")


CHANGES: dict[str, tuple[str, Callable[[int], None]]] = {
    "fsize": ("RLIMIT_FSIZE", lambda pid: resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, 0))),
    "data": (
        "RLIMIT_DATA",
        lambda pid: resource.prlimit(pid, resource.RLIMIT_DATA, (16 << 20, 16 << 20)),
    ),
    "stack": (
        "RLIMIT_STACK",
        lambda pid: resource.prlimit(pid, resource.RLIMIT_STACK, (64 << 10, 64 << 10)),
    ),
    "nice": ("nice", lambda pid: os.setpriority(os.PRIO_PROCESS, pid, 19)),
    "scheduler": (
        "scheduler",
        lambda pid: os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0)),
    ),
    "ioprio": ("ioprio", _ioprio_idle),
}
if len(os.sched_getaffinity(0)) > 1:
    CHANGES["affinity"] = (
        "affinity",
        lambda pid: os.sched_setaffinity(pid, {min(os.sched_getaffinity(pid))}),
    )


def worker_pid(target: Target, worker: str) -> int:
    """The warm worker (pid 1 of its namespace) whose jobs report ``worker``."""
    ns = worker.split("@")[0]
    for pid in descendants(target.server.proc.pid):
        try:
            if os.readlink(f"/proc/{pid}/ns/pid") != ns:
                continue
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        nspid = re.search(r"^NSpid:\s+(.*)$", status, re.M)
        if nspid and nspid.group(1).split()[-1] == "1":
            return pid
    raise AssertionError(f"no worker process in {ns}")


@pytest.mark.parametrize("change", sorted(CHANGES), ids=sorted(CHANGES))
def test_a_worker_changed_from_outside_reports_itself_tainted(target: Target, change: str) -> None:
    what, apply = CHANGES[change]
    workers, clean = current_workers(target)
    victim = sorted(workers)[0]
    log_before = target.server.log.read_text()
    apply(worker_pid(target, victim))
    # Its spare child was forked before the change: that job still passes. Before it forks
    # the next one, the worker reports itself tainted; the job that would have gone to it
    # goes to another worker at no cost.
    deadline = time.monotonic() + HEALTH_TIMEOUT
    while True:
        state, _ = grade(target, GOOD)
        assert inherited(state) == clean, f"a job inherited {inherited(state)}, not {clean}"
        log = target.server.log.read_text()[len(log_before) :]
        if re.search(rf"tainted.*{what}", log):
            break
        assert time.monotonic() < deadline, f"no 'tainted ... {what}' in the log:\n{log}"
    assert re.search(rf"tainted.*{what} changed from .* to ", log), log
    wait_for_full_pool(target)
    per_worker = grade_on_every_worker(target, clean)
    assert victim not in per_worker, "the tainted worker kept grading"
