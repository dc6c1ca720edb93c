"""The service under test: the real app, real bubblewrap workers, SQLite in a temp dir
(or, with ``DRILL_TEST_DB=postgresql``, a fresh PostgreSQL database: see postgres.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from graders.grading.backend import GradingBackend
from tests.app import postgres as pg
from tests.app.postgres import pg_url, postgres
from tests.catalog import shipped_exercises_dir
from tests.conftest import TEST_EXERCISES, make_settings

__all__ = ["pg_url", "postgres"]  # fixtures for every module here


@pytest.fixture(scope="session", autouse=True)
def _stop_postgres() -> Iterator[None]:
    """Stops the session's PostgreSQL cluster at the end, if a test started it."""
    yield
    pg.stop()


def assert_error(response: Any, status: int, error: str, *words: str) -> dict:
    """An error answer of the API: its status, JSON shape, code and message words."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["error"] == error
    for word in words:
        assert word in body["message"], body["message"]
    return body


def client_for(
    tmp: Path,
    exercises: Path | None = None,
    backend: GradingBackend | None = None,
    **overrides: object,
) -> TestClient:
    """A client of the app on ``exercises`` (by default the shipped catalog)."""
    exercises = exercises or shipped_exercises_dir()
    if pg.on_postgres() and "db" not in overrides:
        overrides["db"] = pg.fresh_database()
    return TestClient(create_app(make_settings(tmp, exercises, **overrides), backend))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(tmp_path_factory.mktemp("api")) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def double_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The small test exercise, whose limits are short (2 s CPU, 6 s wall)."""
    with client_for(tmp_path_factory.mktemp("api-double"), TEST_EXERCISES) as test_client:
        yield test_client
