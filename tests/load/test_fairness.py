"""Fair share of the graders, through the real service (two bubblewrap workers): one
client that keeps its whole allowance of slow Submits queued does not delay another
learner's correct Submit, and its allowance is bounded with a 429 a learner understands.

The assertion is on order, not time: the hog's jobs each run until the wall limit (6 s),
so a newcomer graded on a free worker answers before the first of them; without the
share, both workers hold the hog's jobs and the newcomer waits for one of them to end.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from graders.settings import ROOT
from tests.serving import descendants, running_server, wait_for_jobs

pytestmark = pytest.mark.sandbox

EXERCISES = ROOT / "tests" / "graders" / "exercises"
CORRECT = (ROOT / "tests" / "graders" / "cases" / "passing" / "submission.py").read_text()
SLOW = "import time\n\ndef double(x):\n    time.sleep(60)\n"
HOG, OTHER = "10.0.0.1", "10.0.0.2"
ALLOWANCE = 3  # run one after the other: the last waits 12 s, within the 20 s queue wait


def submit(base: str, address: str, code: str) -> httpx.Response:
    # A fresh client per request: no cookie, so each Submit is a new learner at the
    # same address (the hog's cheapest way round a per-learner cap).
    with httpx.Client(timeout=120) as http:
        return http.post(
            f"{base}/api/exercises/double/submissions",
            json={"track": "numpy", "code": code, "mode": "submit"},
            headers={"X-Forwarded-For": address},
        )


def test_a_client_holding_its_allowance_does_not_delay_another_learner(tmp_path: Path) -> None:
    env = {
        "DRILL_EXERCISES_DIR": str(EXERCISES),
        "DRILL_TRUSTED_PROXIES": "127.0.0.1",  # the test is the proxy for both addresses
        "DRILL_MAX_PENDING_PER_CLIENT": str(ALLOWANCE),
    }
    finished: list[tuple[str, int, str]] = []  # (who, status, verdict) in answer order
    lock = threading.Lock()
    with running_server(tmp_path, **env) as server:
        assert submit(server.base, OTHER, CORRECT).json()["status"] == "pass"  # warm

        def hog() -> None:
            answer = submit(server.base, HOG, SLOW)
            with lock:
                finished.append(("hog", answer.status_code, answer.text))
            if answer.status_code == 429:
                assert answer.headers["retry-after"].isdigit()

        # One more than the allowance: its 429 comes once the allowance is all admitted.
        hogs = [threading.Thread(target=hog) for _ in range(ALLOWANCE + 1)]
        for thread in hogs:
            thread.start()

        def sandboxes() -> list[int]:
            return [p for p in descendants(server.proc.pid) if _is_bwrap(p)]

        wait_for_jobs(sandboxes, 1)
        deadline = time.monotonic() + 60
        while not any(status == 429 for _, status, _ in list(finished)):
            assert time.monotonic() < deadline, f"no 429 for the hog: {finished}"
            time.sleep(0.05)
        with lock:
            (text,) = [text for _, status, text in finished if status == 429]
        assert "already waiting to be graded" in text, text

        answer = submit(server.base, OTHER, CORRECT)
        with lock:
            ahead = [who for who, status, _ in finished if status == 200]
        assert answer.json()["status"] == "pass", answer.text
        assert not ahead, f"the other learner was graded after {len(ahead)} of the hog's jobs"
        for thread in hogs:
            thread.join(timeout=120)
        graded = [text for _, status, text in finished if status == 200]
        assert len(graded) == ALLOWANCE
        assert all('"status":"pass"' not in text for text in graded)


def _is_bwrap(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "bwrap"
    except OSError:
        return False
