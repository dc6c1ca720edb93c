"""Faults around the grading path, through the real service: workers killed mid-job or
all at once, the server stopped with jobs in flight, the database busy or read-only."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest

from graders.settings import ROOT
from tests.serving import Server, descendants, free_port, running_server, wait_for_jobs

pytestmark = pytest.mark.sandbox

EXERCISES = str(ROOT / "tests" / "graders" / "exercises")
URL = "/api/exercises/double/submissions"
PASSING = (ROOT / "tests" / "graders" / "cases" / "passing" / "submission.py").read_text()
SLEEPER = "import time\n\ndef double(x):\n    time.sleep(2.5)\n    return x * 2\n"
SLOW = "import time\n\ndef double(x):\n    time.sleep(0.8)\n    return x * 2\n"  # 2 tests: 1.6 s


def post(server: Server, code: str, timeout: float = 60) -> httpx.Response:
    return httpx.post(
        server.base + URL, json={"track": "numpy", "code": code, "mode": "submit"}, timeout=timeout
    )


def workers_of(server: Server, role: str = "learner") -> list[int]:
    """The bubblewrap processes of the server's learner pool (one per worker)."""
    found = []
    for pid in descendants(server.proc.pid):
        command = _cmdline(pid)
        if command and command[0].endswith("bwrap") and command[-1] == role:
            found.append(pid)
    return [pid for pid in found if _is_top(pid, server)]


def _cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]
    except OSError:
        return []


def _is_top(pid: int, server: Server) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return int(stat.rsplit(")", 1)[1].split()[1]) == server.proc.pid


def wait_for_workers(server: Server, count: int, within: float = 60) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        health = httpx.get(server.base + "/healthz", timeout=5).json()
        if health["workers"] == count:
            return
        time.sleep(0.2)
    raise AssertionError(f"the pool did not get back to {count} workers")


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    with running_server(tmp_path, DRILL_EXERCISES_DIR=EXERCISES) as running:
        assert post(running, PASSING).json()["status"] == "pass"  # references warm
        yield running


def test_a_worker_killed_mid_job(server: Server) -> None:
    answers: list[httpx.Response] = []
    thread = threading.Thread(target=lambda: answers.append(post(server, SLEEPER)))
    thread.start()
    wait_for_jobs(lambda: workers_of(server), 1)  # the sleeper now holds one worker
    before = workers_of(server)
    assert len(before) == 2
    for pid in before:  # the one holding the sleeper's child dies mid-job
        os.kill(pid, signal.SIGKILL)
    thread.join(30)
    result = answers[0].json()
    assert answers[0].status_code == 200, result
    # Killed while loading the code (an error) or in its first test (a failure).
    message = result["tests"][0]["message"] if result["tests"] else result["message"]
    assert result["status"] in ("fail", "error") and "sandbox stopped" in message, result
    wait_for_workers(server, 2)
    after = post(server, PASSING).json()
    assert after["status"] == "pass", after


def test_every_worker_killed_at_once(server: Server) -> None:
    for pid in workers_of(server):
        os.kill(pid, signal.SIGKILL)
    # Jobs sent right away wait for the replacements instead of failing.
    answers = [post(server, PASSING) for _ in range(3)]
    assert [a.json()["status"] for a in answers] == ["pass"] * 3
    wait_for_workers(server, 2)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_server_stopped_with_jobs_in_flight(tmp_path: Path, sig: signal.Signals) -> None:
    port = free_port()
    answers: list[object] = []
    with running_server(tmp_path, port, DRILL_EXERCISES_DIR=EXERCISES) as server:
        post(server, PASSING)
        workers = descendants(server.proc.pid)

        def submit() -> None:
            try:
                answers.append(post(server, SLOW, timeout=30))
            except httpx.HTTPError as exc:  # the clear error a client sees
                answers.append(exc)

        threads = [threading.Thread(target=submit) for _ in range(2)]
        for thread in threads:
            thread.start()
        wait_for_jobs(lambda: workers_of(server), 2)  # both jobs are grading now
        server.proc.send_signal(sig)
        server.proc.wait(timeout=30)
        for thread in threads:
            thread.join(30)
    # Every client got either a graded, stored verdict or a connection error.
    graded = [a for a in answers if isinstance(a, httpx.Response)]
    for answer in graded:
        assert answer.status_code == 200 and answer.json()["status"] == "pass", answer.json()[
            "tests"
        ]
    assert len(answers) == 2
    if sig == signal.SIGTERM:
        assert len(graded) == 2, "a graceful stop lets the jobs in flight finish"
    # No sandbox process outlives the server.
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    # After a restart, the stored verdicts are there and new submissions pass.
    with running_server(tmp_path, port, DRILL_EXERCISES_DIR=EXERCISES) as server:
        for answer in graded:
            stored = httpx.get(f"{server.base}/api/submissions/{answer.json()['id']}", timeout=10)
            assert stored.json() == answer.json()
        assert post(server, PASSING).json()["status"] == "pass"


def test_a_read_only_database_answers_503(tmp_path: Path) -> None:
    db = tmp_path / "drill.db"
    with running_server(tmp_path / "first", DRILL_EXERCISES_DIR=EXERCISES, DRILL_DB=str(db)) as s:
        assert post(s, PASSING).status_code == 200  # creates the schema
    read_only = f"sqlite:///file:{db}?mode=ro&uri=true"
    with running_server(
        tmp_path / "second", DRILL_EXERCISES_DIR=EXERCISES, DRILL_DB=read_only
    ) as s:
        answer = post(s, PASSING)
        assert answer.status_code == 503
        assert answer.json()["error"] == "unavailable" and "database" in answer.json()["message"]
        assert int(answer.headers["retry-after"]) > 0
        draft = httpx.put(f"{s.base}/api/drafts/double/numpy", json={"code": "x"}, timeout=10)
        assert draft.status_code == 503
    import sqlite3

    assert sqlite3.connect(db).execute("select count(*) from submissions").fetchone()[0] == 1
