"""Drill itself as the LTI tool under test: the real app (create_app, its lifespan, the
score sender thread, SQLite in a temp dir or PostgreSQL with DRILL_TEST_DB) served by
uvicorn on a loopback port, so that the test LMS (tests/lti/platform.py) can call it back
over HTTP (its JWKS, for the client assertions and the deep linking answer).

Grading is the reference-only backend (tests/fakes.py): the reference solution passes,
anything else fails; nothing of LTI is faked. ``Browser`` does what a browser does between
the LMS and Drill: follows the login redirect and posts the platform's auto-submitted
form, as a cross-site request.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import uvicorn
from fastapi import FastAPI

from app.main import create_app
from app.settings import AppSettings
from tests.app import postgres as pg
from tests.catalog import shipped_exercises_dir
from tests.conftest import make_settings
from tests.fakes import ReferenceOnlyBackend
from tests.lti.platform import FormReader, Platform

OPERATOR_TOKEN = "operator-token-for-the-lti-tests"
GC = "gradient-checkpointing"
SOLUTION = (shipped_exercises_dir() / GC / "numpy" / "solution.py").read_text()
# What a browser says of the LMS's form post to the launch URL.
CROSS_SITE = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}


@dataclass
class Drill:
    base: str
    app: FastAPI
    settings: AppSettings

    @property
    def store(self) -> Any:
        return self.app.state.service.store


def drill_settings(var: Path, **overrides: object) -> AppSettings:
    values: dict[str, object] = {"instructor_token": OPERATOR_TOKEN, **overrides}
    if pg.on_postgres() and "db" not in values:
        values["db"] = pg.fresh_database()
    return make_settings(var, shipped_exercises_dir(), **values)


@contextmanager
def running_drill(settings: AppSettings, host: str = "127.0.0.1") -> Iterator[Drill]:
    """The app on ``settings``, served until the block ends (its lifespan runs: the
    score sender starts and stops with it)."""
    app = create_app(settings, ReferenceOnlyBackend())
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "Drill did not start"
        time.sleep(0.02)
    try:
        yield Drill(f"http://{host}:{sock.getsockname()[1]}", app, settings)
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        sock.close()


def page_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="page-data">(.*?)</script>', html, re.S)
    assert found, html[:2000]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def wait_for(check: Callable[[], Any], within: float = 20.0, what: str = "it") -> Any:
    deadline = time.monotonic() + within
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"waited {within} s for {what}"
        time.sleep(0.05)


class Browser:
    """A browser tab between the LMS and Drill (it keeps cookies, like one)."""

    def __init__(self, drill: str) -> None:
        self.drill = drill
        self.client = httpx.Client(timeout=30)

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def login(self, platform: Platform, user: str = "learner1", message: str = "resource") -> str:
        """Start a launch: the login initiation, answered with the redirect to the
        platform's authorization endpoint (its URL)."""
        answer = self.client.get(
            f"{self.drill}/lti/login", params=platform.login_initiation(user, message)
        )
        assert answer.status_code == 302, answer.text
        location = answer.headers["location"]
        assert location.startswith(f"{platform.base}/auth?"), location
        return location

    def pending(self, platform: Platform, user: str = "learner1") -> tuple[str, str]:
        """The state and nonce of a login begun and not finished."""
        query = parse_qs(urlsplit(self.login(platform, user)).query)
        return query["state"][0], query["nonce"][0]

    def platform_form(
        self, platform: Platform, user: str = "learner1", message: str = "resource"
    ) -> FormReader:
        """What the platform's authorization endpoint answers: the form to post."""
        answer = self.client.get(self.login(platform, user, message))
        assert answer.status_code == 200, answer.text
        return FormReader(answer.text)

    def post_launch(
        self, fields: dict[str, str], headers: dict[str, str] | None = None
    ) -> httpx.Response:
        return self.client.post(
            f"{self.drill}/lti/launch", data=fields, headers=headers or CROSS_SITE
        )

    def launch(
        self, platform: Platform, user: str = "learner1", message: str = "resource"
    ) -> httpx.Response:
        form = self.platform_form(platform, user, message)
        assert form.action == f"{self.drill}/lti/launch", form.action
        return self.post_launch(form.fields)
