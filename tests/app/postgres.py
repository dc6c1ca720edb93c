"""PostgreSQL for the app's tests: one cluster for the whole session (started on first
use: initdb takes seconds), a fresh database per test module.

``DRILL_TEST_DB=postgresql`` runs every app built by ``tests.app.conftest.client_for`` on
a fresh PostgreSQL database instead of SQLite: the whole tests/app suite, against the
store an operator deploys.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from tests.services import postgres_server

_cluster = contextlib.ExitStack()
_url: str | None = None
_lock = threading.Lock()
_numbers = itertools.count(1)


def on_postgres() -> bool:
    """Whether the apps under test store in PostgreSQL (DRILL_TEST_DB=postgresql)."""
    return os.environ.get("DRILL_TEST_DB", "sqlite") == "postgresql"


def server_url() -> str:
    """The session's cluster (started now if it is not running yet): its ``postgres``
    database, for administration."""
    global _url
    with _lock:
        if _url is None:
            _url = _cluster.enter_context(postgres_server())
        return _url


def stop() -> None:
    global _url
    with _lock:
        _cluster.close()
        _url = None


def fresh_database() -> str:
    """A new, empty database on the session's cluster; its URL."""
    admin_url = server_url()
    name = f"drill_test_{os.getpid()}_{next(_numbers)}"
    # CREATE DATABASE cannot run inside a transaction.
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        engine.dispose()
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def postgres() -> Iterator[str]:
    """The session's cluster (its administration URL)."""
    yield server_url()


@pytest.fixture(scope="module")
def pg_url(postgres: str) -> str:
    """A database of this test module's own."""
    return fresh_database()
