"""The service under test: the real app, real bubblewrap workers, SQLite in a temp dir."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from graders.settings import ROOT
from tests.conftest import TEST_EXERCISES, make_settings


def client_for(tmp: Path, exercises: Path = ROOT / "exercises", **overrides: object) -> TestClient:
    return TestClient(create_app(make_settings(tmp, exercises, **overrides)))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(tmp_path_factory.mktemp("api")) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def double_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """The small test exercise, whose limits are short (2 s CPU, 3 s wall)."""
    with client_for(tmp_path_factory.mktemp("api-double"), TEST_EXERCISES) as test_client:
        yield test_client
