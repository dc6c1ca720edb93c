"""The warm worker's check of its own state, and the limits a child sets for itself.

A child inherits its worker's resource limits, nice value, CPU affinity, scheduling and I/O
priority. The worker records them when it becomes ready and compares before every fork
(``Worker.check_untainted``); a difference makes it report ``tainted`` and exit, and the
pool sends the job to another worker. The child's ``limit()`` sets every limit itself, so
none it inherited decides a verdict, and one it cannot restore stops the job with a
message that names it. The service-level proof (a real worker changed from outside) is in
``tests/security/test_poisoning.py``.
"""

from __future__ import annotations

import logging
import resource
import subprocess
import sys
import timeit
from pathlib import Path
from typing import Any

import pytest

from graders.grading.grader import Grader
from graders.grading.isolation import find_bwrap, worker_command
from graders.grading.jobs import job_for
from graders.grading.pool import WorkerPool
from graders.sandbox import worker
from tests.program_output import last_json_line

ROOT = Path(__file__).resolve().parents[2]
GOOD = (Path(__file__).parent / "cases" / "passing" / "submission.py").read_text()


def run_script(script: str) -> dict[str, Any]:
    """Run ``script`` in a fresh Python (it changes its own process); return its JSON."""
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    return dict(last_json_line(completed, "the worker-state script"))


def test_the_state_covers_every_limit_and_the_scheduling() -> None:
    state = worker.process_state()
    names = {n for n in dir(resource) if n.startswith("RLIMIT_")} - {"RLIMIT_OFILE"}
    assert names <= set(state)
    assert {"nice", "affinity", "scheduler", "sched_priority", "ioprio"} <= set(state)
    assert worker.state_changes(state, worker.process_state()) == []


def test_the_check_costs_well_under_a_millisecond() -> None:
    baseline = worker.process_state()
    runs = 2000
    seconds = timeit.timeit(
        lambda: worker.state_changes(baseline, worker.process_state()), number=runs
    )
    assert seconds / runs < 1e-3, f"{seconds / runs * 1e6:.0f} µs per check"


CHANGE_THEN_CHECK = r"""
import json, os, resource, socket, sys
from graders.sandbox import wire, worker

ours, theirs = socket.socketpair()
w = worker.Worker(theirs, sandboxed=False)
w.baseline = worker.process_state()
w.check_untainted()  # unchanged: returns
resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
os.nice(5)
pid = os.fork()
if pid == 0:
    w.check_untainted()
    os._exit(0)  # not reached
_, status = os.waitpid(pid, 0)
frame, _ = wire.next_frame(ours.recv(65536), 0)
print(json.dumps({"exit": os.waitstatus_to_exitcode(status), "frame": frame.header}))
"""


def test_a_changed_worker_reports_itself_tainted_and_exits() -> None:
    got = run_script(CHANGE_THEN_CHECK)
    assert got["exit"] == worker.TAINTED_EXIT
    assert got["frame"]["type"] == "tainted"
    reason = got["frame"]["reason"]
    assert "RLIMIT_FSIZE changed from (" in reason and "to (0, 0)" in reason, reason
    assert "nice changed from" in reason and "to 5" in reason, reason


LIMIT = r"""
import json, resource
from graders.sandbox import worker

worker.BASELINE = worker.process_state()
LOWER = {LOWER}
for name, value in LOWER.items():
    resource.setrlimit(getattr(resource, name), value)
try:
    worker.limit({{"cpu_seconds": 2, "memory_bytes": 512 << 20, "raw_output_bytes": 1 << 20,
                  "processes": 64}})
except RuntimeError as exc:
    print(json.dumps({{"error": str(exc)}}))
else:
    print(json.dumps({{
        "baseline": {{k: worker.BASELINE[k] for k in worker.RLIMITS}},
        "now": {{k: resource.getrlimit(v) for k, v in worker.RLIMITS.items()}},
    }}))
"""


def test_the_child_sets_every_limit_itself() -> None:
    """Soft limits lowered (as a poisoned worker would pass on) come back to the worker's
    start-up values; the data limit is the address-space limit, never tighter."""
    hard_stack = resource.getrlimit(resource.RLIMIT_STACK)[1]
    hard_memlock = resource.getrlimit(resource.RLIMIT_MEMLOCK)[1]
    lower = {"RLIMIT_STACK": (64 << 10, hard_stack), "RLIMIT_MEMLOCK": (0, hard_memlock)}
    got = run_script(LIMIT.format(LOWER=repr(lower)))
    now, baseline = got["now"], got["baseline"]
    assert now["RLIMIT_STACK"] == baseline["RLIMIT_STACK"]
    assert now["RLIMIT_MEMLOCK"] == baseline["RLIMIT_MEMLOCK"]
    assert now["RLIMIT_DATA"] == now["RLIMIT_AS"]
    assert now["RLIMIT_FSIZE"] == [1 << 20, 1 << 20]
    job = {"RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_CORE"}
    job |= {"RLIMIT_NPROC", "RLIMIT_NOFILE"}
    for name in set(worker.RLIMITS) - job:
        assert now[name] == baseline[name], name


DROP_SYS_RESOURCE = """
import ctypes
header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
data = (ctypes.c_uint32 * 6)()  # {effective, permitted, inheritable} x 2
libc = ctypes.CDLL(None, use_errno=True)
assert libc.capget(header, data) == 0
data[0] &= ~(1 << 24)  # CAP_SYS_RESOURCE
data[1] &= ~(1 << 24)
assert libc.capset(header, data) == 0, ctypes.get_errno()
"""


@pytest.mark.parametrize(
    "name, value",
    [("RLIMIT_FSIZE", (0, 0)), ("RLIMIT_STACK", (256 << 10, 256 << 10))],
    ids=["fsize", "stack"],
)
def test_a_limit_the_child_cannot_restore_fails_clearly(name: str, value: tuple[int, int]) -> None:
    # The worker's start-up value is wider than what the child inherited: a child (without
    # CAP_SYS_RESOURCE, which root has and the sandbox drops) cannot raise a hard limit,
    # and must say which one.
    script = LIMIT.format(LOWER="{}").replace(
        "worker.BASELINE = worker.process_state()",
        "worker.BASELINE = worker.process_state()\n"
        + DROP_SYS_RESOURCE
        + f"resource.setrlimit(resource.{name}, {value!r})",
    )
    got = run_script(script)
    assert "error" in got, got
    assert got["error"].startswith(f"cannot set {name} to ("), got
    assert "the worker's limit is (" in got["error"], got


FAKE_TAINTED_WORKER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import socket
from graders.sandbox import wire

ctrl = socket.socket(fileno=int(sys.argv[2]))
ctrl.sendall(wire.pack({"type": "ready", "pid": 1, "versions": {}}))
reason = "RLIMIT_FSIZE changed from (unlimited, unlimited) to (0, 0)"
ctrl.sendall(wire.pack({"type": "tainted", "reason": reason}))
time.sleep(120)  # alive: the pool learns it from the frame, not from its death
"""


@pytest.mark.sandbox
def test_a_tainted_frame_sends_the_job_to_another_worker(
    test_grader: Grader, caplog: pytest.LogCaptureFixture
) -> None:
    """A pool of one whose first worker reports itself tainted where a spare child was
    expected: the job is not lost, it runs on the replacement (a real bubblewrap worker).
    The pool takes each worker's spare child before it gives the worker a job, so the
    tainted worker is replaced before the job reaches it."""
    bwrap = find_bwrap()
    started: list[int] = []

    def command(fd: int) -> list[str]:
        started.append(fd)
        if len(started) == 1:
            return [sys.executable, "-c", FAKE_TAINTED_WORKER, str(ROOT), str(fd)]
        return worker_command("bwrap", fd, bwrap)

    exercise = test_grader.catalog.get("double")
    reference = test_grader.reference(exercise, "numpy")
    limits = test_grader.local.limits(exercise)
    job = job_for(exercise, "numpy", GOOD, reference.ids(False), limits)
    pool = WorkerPool(command, 1, "tainted-test")
    try:
        pool.start()
        with caplog.at_level(logging.WARNING, logger="drill.pool"):
            outcome = pool.run(job, limits)
    finally:
        pool.close()
    kinds = [f.header.get("type") for f in outcome.frames]
    assert kinds.count("test") == 2 and "done" in kinds, kinds
    assert all(f.header.get("status") == "ok" for f in outcome.frames if f.header["type"] == "test")
    assert len(started) == 2
    logged = caplog.text
    assert "reported itself tainted: RLIMIT_FSIZE changed from" in logged, logged
    assert "it is replaced before it takes a job" in logged, logged
