"""Browser tests: the real service (``drill serve`` in a subprocess, bubblewrap workers,
SQLite in a temp dir) driven by Playwright in Debian's Chromium.

They fail, never skip, when Chromium is missing: ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.serving import running_server


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every browser test needs a server and Chromium: none may run in make test-fast, and
    one whose module forgot its marker fails here rather than slow the fast loop."""
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here) and item.get_closest_marker("sandbox") is None:
            raise pytest.UsageError(f"{item.nodeid}: a browser test must be marked sandbox")


CHROMIUM = os.environ.get("DRILL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a running ``drill serve`` on the shipped catalog."""
    with running_server(tmp_path_factory.mktemp("browser-var")) as running:
        # Warm the references so that no test's first Submit pays for them.
        for row in httpx.get(f"{running.base}/api/exercises", timeout=30).json():
            httpx.get(f"{running.base}/api/exercises/{row['slug']}", timeout=120)
        yield running.base


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert Path(CHROMIUM).exists(), f"Chromium not found at {CHROMIUM} (apt-get install chromium)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: errors.append(str(e)))
    yield opened
    context.close()
    assert not [e for e in errors if "Content Security Policy" in e or "Refused" in e], errors
