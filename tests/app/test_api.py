"""Every endpoint of the HTTP contract, field for field, and every error answer."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import assert_error, client_for
from tests.app.postgres import on_postgres
from tests.catalog import declared_counts, shipped_exercises_dir
from tests.conftest import TEST_EXERCISES

pytestmark = pytest.mark.sandbox

GC = "gradient-checkpointing"
NUMPY_SOLUTION = (shipped_exercises_dir() / GC / "numpy" / "solution.py").read_text()
RESULT_FIELDS = {
    "id",
    "exercise",
    "track",
    "mode",
    "version",
    "status",
    "message",
    "passed",
    "total",
    "duration_ms",
    "created_at",
    "tests",
    # What the module printed while loading, apart from the tests' output.
    "load_output",
    "load_output_truncated",
    "load_output_bytes",
    "load_output_bytes_at_least",
    "regrade",  # null unless drill regrade made it
    "blame",  # null unless the whole run failed with no test verdicts
}
TEST_FIELDS = {
    "id",
    "name",
    "status",
    "message",
    "output",
    "output_truncated",
    "output_bytes",
    "output_bytes_at_least",
    "duration_ms",
    "hint",
    "blame",  # who a failure is due to; null for a pass
}


def submit(
    client: TestClient, code: str, mode: str = "submit", track: str = "numpy", slug: str = GC
) -> dict:
    response = client.post(
        f"/api/exercises/{slug}/submissions", json={"track": track, "code": code, "mode": mode}
    )
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.catalog
def test_healthz(client: TestClient) -> None:
    health = client.get("/healthz").json()
    # This machine (and CI's) gives each worker and job a cgroup (graders/grading/cgroups.py).
    assert health == {"status": "ok", "sandbox": "bwrap", "workers": 2, "cgroups": "v1"} or (
        health == {"status": "ok", "sandbox": "bwrap", "workers": 2, "cgroups": "v2"}
    )
    assert client.head("/healthz").status_code == 200  # for health checkers that use HEAD


@pytest.mark.catalog
def test_submit_passes_and_is_stored(client: TestClient) -> None:
    result = submit(client, NUMPY_SOLUTION)
    assert set(result) == RESULT_FIELDS
    _, hidden = declared_counts(GC, "numpy")
    assert (result["status"], result["passed"], result["total"]) == ("pass", hidden, hidden)
    assert result["version"] == 1 and result["exercise"] == GC and result["mode"] == "submit"
    assert result["regrade"] is None
    assert (result["load_output"], result["load_output_bytes"]) == ("", 0)  # a silent module
    for test in result["tests"]:
        assert set(test) == TEST_FIELDS and test["status"] == "pass"
        # The sandbox counted what the test printed: all of it is kept.
        assert test["output_bytes"] == len(test["output"].encode())
        assert test["output_truncated"] is False and test["output_bytes_at_least"] is False
    stored = client.get(f"/api/submissions/{result['id']}")
    assert stored.status_code == 200 and stored.json() == result


@pytest.mark.catalog
def test_run_mode_grades_the_examples(client: TestClient) -> None:
    result = submit(client, NUMPY_SOLUTION, mode="run")
    examples, _ = declared_counts(GC, "numpy")
    assert (result["status"], result["passed"], result["total"]) == ("pass", examples, examples)


@pytest.mark.catalog
def test_failing_and_erroring_tests(client: TestClient) -> None:
    starter = client.get(f"/api/exercises/{GC}").json()["tracks"]["torch"]["starter_code"]
    result = submit(client, starter, track="torch")
    assert result["status"] == "fail" and result["passed"] == 0
    assert all(
        t["status"] == "error" and "NotImplementedError" in t["message"] for t in result["tests"]
    )
    assert all(isinstance(t["hint"], int) for t in result["tests"])


@pytest.mark.catalog
def test_syntax_error(client: TestClient) -> None:
    result = submit(client, "def checkpoint_forward(:\n    pass\n")
    assert result["status"] == "error" and result["tests"] == []
    assert result["message"].startswith("SyntaxError at line 1, column")


@pytest.mark.catalog
def test_output_is_returned_as_text(client: TestClient) -> None:
    code = NUMPY_SOLUTION.replace(
        "def checkpoint_forward(", "print('<b>hi</b>')\n\ndef checkpoint_forward(", 1
    )
    result = submit(client, code, mode="run")
    # Printed while the module loaded: shown apart, not at the start of the first test's.
    assert result["load_output"] == "<b>hi</b>\n" and result["load_output_bytes"] == 10
    assert "<b>hi</b>" not in result["tests"][0]["output"]


def test_full_queue_answers_503_with_retry_after(tmp_path: Path) -> None:
    sleeper = "import time\n\ndef double(x):\n    time.sleep(2)\n    return x * 2\n"
    with client_for(tmp_path, TEST_EXERCISES, max_pending=1, workers=1) as busy:
        url = "/api/exercises/double/submissions"
        first = threading.Thread(
            target=busy.post,
            args=(url,),
            kwargs={"json": {"track": "numpy", "code": sleeper, "mode": "run"}},
        )
        first.start()
        # The second is sent once the first holds the only slot (a fixed pause raced a
        # slow start on a loaded machine); the first then sleeps 2 s in its job.
        admission = busy.app.state.service.admission  # type: ignore[attr-defined]
        deadline = time.monotonic() + 60
        while admission.pending < 1:
            assert time.monotonic() < deadline, "the first submission never took its slot"
            time.sleep(0.01)
        response = busy.post(url, json={"track": "numpy", "code": sleeper, "mode": "run"})
        first.join()
    assert_error(response, 503, "unavailable", "capacity")
    assert int(response.headers["retry-after"]) >= 1


@pytest.mark.skipif(on_postgres(), reason="locks the SQLite file (DRILL_TEST_DB=postgresql)")
def test_busy_database_answers_503_and_keeps_nothing_half_written(tmp_path: Path) -> None:
    code = (
        Path(__file__).parents[1] / "graders" / "cases" / "passing" / "submission.py"
    ).read_text()
    with client_for(tmp_path, TEST_EXERCISES) as app_client:
        url = "/api/exercises/double/submissions"
        body = {"track": "numpy", "code": code, "mode": "run"}
        assert app_client.post(url, json=body).status_code == 200
        blocker = sqlite3.connect(tmp_path / "drill.db", timeout=1)
        blocker.execute("BEGIN EXCLUSIVE")
        try:
            response = app_client.post(url, json=body)
        finally:
            blocker.rollback()
            blocker.close()
        assert_error(response, 503, "unavailable", "database")
        assert int(response.headers["retry-after"]) >= 1
        count = (
            sqlite3.connect(tmp_path / "drill.db")
            .execute("select count(*) from submissions")
            .fetchone()[0]
        )
        assert count == 1
        assert app_client.post(url, json=body).status_code == 200
