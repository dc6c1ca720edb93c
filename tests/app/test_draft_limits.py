"""Drafts are metered: one client, even one that mints a new learner with every request
(no cookie), cannot grow the database past ``draft_burst`` drafts of at most the code
size cap at once, then ``draft_rate_per_minute`` of them a minute."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.tables import DraftRow
from tests.app.conftest import assert_error, client_for
from tests.conftest import TEST_EXERCISES

BURST = 5
URL = "/api/drafts/double/numpy"


def test_one_client_cannot_grow_the_database_past_its_allowance(tmp_path: Path) -> None:
    settings = {"draft_burst": BURST, "draft_rate_per_minute": 0.01}  # no refill here
    with client_for(tmp_path, TEST_EXERCISES, **settings) as client:
        code = "#" * (60 * 1024)
        answers = [TestClient(client.app).put(URL, json={"code": code}) for _ in range(40)]
        saved = [a for a in answers if a.status_code == 200]
        refused = [a for a in answers if a.status_code != 200]
        assert len(saved) == BURST, [a.status_code for a in answers]
        for answer in refused:
            assert_error(answer, 429, "rate_limited", "too many draft saves", "try again in")
            assert int(answer.headers["retry-after"]) >= 1
        store = client.app.state.service.store  # type: ignore[attr-defined]
        with store.engine.connect() as connection:
            rows, size = connection.execute(
                select(func.count(), func.sum(func.length(DraftRow.code)))
            ).one()
        max_code = client.app.state.settings.max_code_bytes  # type: ignore[attr-defined]
        assert rows == BURST and size <= BURST * max_code, (rows, size)
        # Submits have a bucket of their own: the drafts did not use it up.
        body = {"track": "numpy", "code": "def double(x):\n    return x * 2\n", "mode": "run"}
        assert client.post("/api/exercises/double/submissions", json=body).status_code == 200
