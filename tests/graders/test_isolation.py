"""What a submission can reach from inside the sandbox: nothing of the references, the
server or other jobs. Run through the real worker pool with bubblewrap."""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
import uuid
from pathlib import Path

import pytest

from graders.grading.grader import Grader
from graders.grading.references import job_for
from tests.conftest import TEST_EXERCISES, make_settings
from tests.serving import descendants, wait_for_jobs

pytestmark = pytest.mark.sandbox

# The submission searches for a marker it only knows as two halves, so that it never
# holds the whole marker itself; a control marker written whole into its own source
# must be found, which proves the memory scan sees what it should.
SEARCH = r"""
import os

HALVES = ({first!r}, {second!r})
CONTROL = ({control_first!r}, {control_second!r})
CONTROL_LITERAL = {control!r}
ROOTS = {roots!r}
SKIP = {skip!r}


def contains(data, halves):
    first, second = halves[0].encode(), halves[1].encode()
    start = data.find(first)
    while start != -1:
        end = start + len(first)
        if data[end:end + len(second)] == second:
            return True
        start = data.find(first, start + 1)
    return False


def scan_memory():
    scanned, found, control = 0, False, False
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", 0) as mem:
        for line in maps:
            parts = line.split()
            lo, hi = (int(v, 16) for v in parts[0].split("-"))
            if "r" not in parts[1] or (len(parts) > 5 and parts[5] in ("[vvar]", "[vsyscall]")):
                continue
            for offset in range(lo, hi, 1 << 22):
                try:
                    chunk = os.pread(mem.fileno(), min(1 << 22, hi - offset) + 64, offset)
                except OSError:
                    continue
                scanned += len(chunk)
                found = found or contains(chunk, HALVES)
                control = control or contains(chunk, CONTROL)
    return scanned, found, control


def walk():
    for root in ROOTS:
        for top, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if os.path.join(top, d) not in SKIP]
            yield top, dirs, files


def scan_files():
    read, found, where = 0, False, ""
    for top, dirs, files in walk():
        for name in files:
            path = os.path.join(top, name)
            try:
                if os.path.getsize(path) > 1 << 20:
                    continue
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue
            read += 1
            if contains(data, HALVES):
                found, where = True, path
    return read, found, where


def scan_processes():
    seen, found = 0, False
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for name in ("environ", "cmdline"):
            try:
                with open(f"/proc/{{pid}}/{{name}}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            seen += 1
            found = found or contains(data, HALVES)
    env = "".join(f"{{k}}={{v}}" for k, v in os.environ.items()).encode()
    return seen, found or contains(env, HALVES)


def double(x):
    memory, in_memory, control = scan_memory()
    files, in_files, where = scan_files()
    procs, in_procs = scan_processes()
    print(f"memory={{memory}} in_memory={{in_memory}} control={{control}}")
    print(f"files={{files}} in_files={{in_files}} where={{where}}")
    print(f"procs={{procs}} in_procs={{in_procs}}")
    return x * 2
"""


def _report(output: str) -> dict[str, str]:
    return dict(
        item.split("=", 1)
        for line in output.splitlines()
        for item in line.split(" ")
        if "=" in item
    )


# The file scan reads every file the sandbox can see (about 150 000 on the development
# machine, most of /usr): split in three jobs so that each stays well inside the largest
# limits an exercise may have, even with a cold page cache on a loaded machine.
BIG = ("/usr/lib", "/usr/share")
SCANS = [*(([folder], []) for folder in BIG), (["/"], ["/proc", "/sys", "/dev", *BIG])]


def test_a_submission_cannot_find_a_reference_marker(tmp_path: Path) -> None:
    marker = f"DRILL-SECRET-{uuid.uuid4().hex}"
    control = f"DRILL-CONTROL-{uuid.uuid4().hex}"
    exercises = tmp_path / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", exercises / "double")
    solution = exercises / "double" / "numpy" / "solution.py"
    solution.write_text(f"SECRET = {marker!r}\n\n\ndef double(x):\n    return x * 2\n")
    toml = exercises / "double" / "exercise.toml"
    # The largest limits an exercise may have: each scan reads tens of thousands of files.
    limits = re.sub(r"cpu_seconds = \d+", "cpu_seconds = 60", toml.read_text())
    limits = re.sub(r"wall_seconds = \d+", "wall_seconds = 120", limits)
    assert "cpu_seconds = 60" in limits and "wall_seconds = 120" in limits, limits
    toml.write_text(limits)
    files = 0
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        for roots, skip in SCANS:
            code = SEARCH.format(
                first=marker[:20],
                second=marker[20:],
                control_first=control[:20],
                control_second=control[20:],
                control=control,
                roots=roots,
                skip=skip,
            )
            assert marker not in code
            # The reference runs first (in its own pool), so its marker was in a sandbox.
            result = grader.grade(grader.catalog.get("double"), "numpy", code, "run")
            assert result.status == "pass", (roots, result)
            report = _report(result.tests[0].output)
            assert report["control"] == "True", "the memory scan must find the control marker"
            assert int(report["memory"]) > 50_000_000, "the scan must cover the worker's memory"
            assert int(report["procs"]) >= 1
            assert report["in_memory"] == "False"
            assert report["in_files"] == "False", report["where"]
            assert report["in_procs"] == "False"
            files += int(report["files"])
    assert files > 1000, "the file scan must read the visible file system"


def test_selfcheck_finds_the_sandbox_tight(test_grader: Grader) -> None:
    assert test_grader.local.pool is not None
    assert test_grader.local.selfcheck(test_grader.local.pool) is None


def test_selfcheck_finds_a_writable_proc_where_there_is_one(tmp_path: Path) -> None:
    # The same canary in plain processes, where /proc is the host's and writable: it says
    # so, as it would in a sandbox whose /proc was not mounted read-only.
    with Grader(make_settings(tmp_path, TEST_EXERCISES, sandbox="process", workers=1)) as grader:
        assert grader.local.pool is not None
        problems = grader.local.selfcheck(grader.local.pool) or ""
    assert "can write to /proc/self/autogroup" in problems, problems


@pytest.mark.catalog
def test_a_torch_job_imports_nothing_after_start_up(seed_grader: Grader) -> None:
    for slug in ("gradient-checkpointing", "checkpointing-layer-stack"):
        exercise = seed_grader.catalog.get(slug)
        reference = seed_grader.reference(exercise, "torch")
        limits = seed_grader.local.limits(exercise)
        job = job_for(
            exercise, "torch", exercise.track("torch").solution, reference.ids(False), limits
        )
        assert seed_grader.local.pool is not None
        outcome = seed_grader.local.pool.run(job, limits)
        done = [f.header for f in outcome.frames if f.header.get("type") == "done"]
        assert done and done[0]["imported"] == [], done


def sleeping_in(root: int) -> bool:
    """Whether a process under ``root`` waits in a nanosleep (``time.sleep``)."""
    for pid in [root, *descendants(root)]:
        try:
            if "nanosleep" in Path(f"/proc/{pid}/wchan").read_text():
                return True
        except OSError:
            continue
    return False


def test_a_killed_worker_is_replaced_and_the_next_job_passes(tmp_path: Path) -> None:
    good = (Path(__file__).parent / "cases" / "passing" / "submission.py").read_text()
    sleeper = "import time\n\ndef double(x):\n    time.sleep(30)\n"
    with Grader(make_settings(tmp_path, TEST_EXERCISES, workers=1)) as grader:
        assert grader.grade(grader.catalog.get("double"), "numpy", good, "submit").status == "pass"
        assert grader.local.pool is not None
        (worker,) = list(grader.local.pool._all)
        import threading

        def kill_soon() -> None:
            assert worker.proc is not None
            wait_for_jobs(lambda: [worker.proc.pid], 1)  # type: ignore[union-attr]
            # The spare child that waits for a job is a harness process too: kill once the
            # job's own time.sleep runs, not while the pool still hands the job over (the
            # pool would give it to the replacement, where it runs to its time limit).
            deadline = time.monotonic() + 60
            while not sleeping_in(worker.proc.pid):  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "the job never reached time.sleep"
                time.sleep(0.02)
            os.killpg(worker.proc.pid, signal.SIGKILL)

        threading.Thread(target=kill_soon).start()
        result = grader.grade(grader.catalog.get("double"), "numpy", sleeper, "submit")
        # Killed while loading the code (an error) or in its first test (a failure): the
        # kill follows the job's start, not a fixed pause that a loaded machine outlasts.
        message = result.tests[0].message if result.tests else result.message
        assert result.status in ("fail", "error") and "sandbox stopped" in message, result
        assert grader.grade(grader.catalog.get("double"), "numpy", good, "submit").status == "pass"
        assert grader.local.pool.live_workers == 1


def test_a_late_kill_request_cannot_hit_the_next_job(tmp_path: Path) -> None:
    """A kill the server sends as a child ends on its own must not kill the next child."""
    good = (Path(__file__).parent / "cases" / "passing" / "submission.py").read_text()
    with Grader(make_settings(tmp_path, TEST_EXERCISES, workers=1)) as grader:
        assert grader.grade(grader.catalog.get("double"), "numpy", good, "submit").status == "pass"
        assert grader.local.pool is not None
        (worker,) = list(grader.local.pool._all)
        # The previous child has ended; a kill for it arrives late, then the next job.
        worker._send({"type": "kill", "pid": 2})
        worker._send({"type": "kill", "pid": -1})
        result = grader.grade(grader.catalog.get("double"), "numpy", good, "submit")
        assert result.status == "pass", result.tests[0].message
