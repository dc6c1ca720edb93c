"""Sustained load: 16 concurrent clients mixing correct and hostile submissions against
the real service. Every correct one passes, every hostile one fails, no request hangs,
overload is answered with 429/503 and Retry-After, memory stays bounded, and no process
outlives the server."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from graders.settings import ROOT
from tests.serving import descendants, running_server

pytestmark = pytest.mark.sandbox

CLIENTS = 16
DURATION = 20.0
# The load goes on past DURATION until the tallies asserted below are reached (on a loaded
# machine 20 s may hold fewer jobs), but never past this: the counts never race the clock.
CAP = DURATION + 100.0
ENOUGH_CORRECT, ENOUGH_HOSTILE = 20, 10
CASES = ROOT / "tests" / "graders" / "cases"
CORRECT = (CASES / "passing" / "submission.py").read_text()
HOSTILE = {
    name: (CASES / name / "submission.py").read_text()
    for name in (
        "infinite_loop",
        "fork_bomb",
        "memory_python",
        "huge_raw_output",
        "segfault",
        "forged_result",
        "sys_exit_zero",
        "kill_parent",
        "sleeps",
    )
}


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def test_sixteen_clients_mixing_correct_and_hostile_code(tmp_path: Path) -> None:
    env = {
        "DRILL_EXERCISES_DIR": str(ROOT / "tests" / "graders" / "exercises"),
        "DRILL_MAX_PENDING": "8",  # small, so that overload really happens
        "DRILL_RATE_PER_MINUTE": "3000",
        "DRILL_RATE_BURST": "60",
        # Sixteen clients behind the test, their own proxy: each has its own address and
        # so its own fair share of the workers (app/admission.py).
        "DRILL_TRUSTED_PROXIES": "127.0.0.1",
    }
    outcomes: Counter[str] = Counter()
    problems: list[str] = []
    memory: list[int] = []
    lock = threading.Lock()
    with running_server(tmp_path, **env) as server:
        url = f"{server.base}/api/exercises/double/submissions"

        def pss_now() -> int:
            return sum(_rss_kb(p) for p in [server.proc.pid, *descendants(server.proc.pid)])

        httpx.post(url, json={"track": "numpy", "code": CORRECT, "mode": "submit"}, timeout=60)
        idle_before = pss_now()
        started = time.monotonic()
        stop, cap = started + DURATION, started + CAP

        def going() -> bool:
            now = time.monotonic()
            if now < stop:
                return True
            with lock:
                short = (
                    outcomes["200 correct"] < ENOUGH_CORRECT
                    or outcomes["200 hostile"] < ENOUGH_HOSTILE
                )
            return short and now < cap

        def client(seed: int) -> None:
            rng = random.Random(seed)
            address = {"X-Forwarded-For": f"10.0.1.{seed + 1}"}
            with httpx.Client(timeout=60, headers=address) as http:
                while going():
                    hostile = rng.random() < 0.4
                    name = rng.choice(sorted(HOSTILE)) if hostile else "correct"
                    code = HOSTILE[name] if hostile else CORRECT
                    try:
                        answer = http.post(
                            url, json={"track": "numpy", "code": code, "mode": "submit"}
                        )
                    except httpx.HTTPError as exc:  # a hang or a dropped connection
                        with lock:
                            problems.append(f"{name}: {exc!r}")
                        continue
                    with lock:
                        if answer.status_code == 200:
                            status = answer.json()["status"]
                            if hostile and status == "pass":
                                problems.append(f"hostile {name} passed")
                            if not hostile and status != "pass":
                                problems.append(f"correct code got {answer.json()}")
                            outcomes[f"200 {'hostile' if hostile else 'correct'}"] += 1
                        elif answer.status_code in (429, 503):
                            outcomes[str(answer.status_code)] += 1
                            if not answer.headers.get("retry-after", "").isdigit():
                                problems.append(f"{answer.status_code} without Retry-After")
                        else:
                            problems.append(
                                f"{name}: unexpected {answer.status_code} {answer.text}"
                            )
                    if answer.status_code in (429, 503):
                        time.sleep(min(float(answer.headers.get("retry-after", "1")), 2.0))

        def sample_memory() -> None:
            while going():
                pids = [server.proc.pid, *descendants(server.proc.pid)]
                memory.append(sum(_rss_kb(pid) for pid in pids))
                time.sleep(0.5)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
        threads.append(threading.Thread(target=sample_memory))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(0.0, cap - time.monotonic()) + 90)
        assert not any(thread.is_alive() for thread in threads), "a client hung"
        time.sleep(2)  # the last children exit
        idle_after = pss_now()
        health = httpx.get(f"{server.base}/healthz", timeout=10).json()
        after = httpx.post(
            url, json={"track": "numpy", "code": CORRECT, "mode": "submit"}, timeout=60
        )
        family = descendants(server.proc.pid)
    assert not problems, problems[:10]
    assert outcomes["200 correct"] >= ENOUGH_CORRECT, outcomes
    assert outcomes["200 hostile"] >= ENOUGH_HOSTILE, outcomes
    assert outcomes["503"] + outcomes["429"] >= 1, f"no overload was answered: {outcomes}"
    assert health["workers"] == 2 and after.json()["status"] == "pass"
    # Memory stays bounded: under load, at most the idle pool plus each worker's child at
    # its limit (512 MiB) and result (64 MiB); and after the load, back to where it was.
    assert max(memory) < idle_before + 2 * 576 * 1024 + 300 * 1024, (idle_before, max(memory))
    assert idle_after <= idle_before * 1.25 + 150 * 1024, (idle_before, idle_after)
    # Nothing the server started survives it.
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{pid}").exists() for pid in family) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in family if Path(f"/proc/{pid}").exists()]
