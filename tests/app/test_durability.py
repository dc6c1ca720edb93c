"""A stored result survives ``kill -9`` of the server."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.catalog import shipped_exercises_dir
from tests.serving import free_port, running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]
GC = "gradient-checkpointing"
SOLUTION = (shipped_exercises_dir() / GC / "numpy" / "solution.py").read_text()


def test_a_result_survives_kill_9(tmp_path: Path) -> None:
    port = free_port()
    with running_server(tmp_path, port) as server:
        answer = httpx.post(
            f"{server.base}/api/exercises/{GC}/submissions",
            json={"track": "numpy", "code": SOLUTION, "mode": "submit"},
            timeout=120,
        )
        assert answer.status_code == 200
        server.kill9()  # no shutdown, no flush: only what was committed survives
    with running_server(tmp_path, port) as server:
        stored = httpx.get(f"{server.base}/api/submissions/{answer.json()['id']}", timeout=30)
    assert stored.status_code == 200
    assert stored.json() == answer.json()
