"""A link to the learner's page with ``?track=`` (from the instructor dashboard or
``drill preview``) opens that track in Chromium, over the track the browser remembers,
and does not replace what it remembers."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.browser.learner import editor_text, open_exercise

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

SLUG = "gradient-checkpointing"  # numpy and torch (a contract of the design)


def pressed(page: Page, track: str) -> None:
    expect(page.locator(f'.track-button[data-track="{track}"]')).to_have_attribute(
        "aria-pressed", "true"
    )


def test_the_address_track_wins_over_the_remembered_one(page: Page, server: str) -> None:
    answer = httpx.get(f"{server}/api/exercises/{SLUG}", timeout=120)
    assert answer.status_code == 200, answer.text
    starters = {name: info["starter_code"] for name, info in answer.json()["tracks"].items()}
    assert starters["numpy"] != starters["torch"]
    open_exercise(page, server, SLUG)
    page.locator('.track-button[data-track="torch"]').click()  # remembered from now on
    pressed(page, "torch")

    page.goto(f"{server}/exercises/{SLUG}?track=numpy")
    pressed(page, "numpy")
    expect(page.locator('.track-button[data-track="torch"]')).to_have_attribute(
        "aria-pressed", "false"
    )
    assert editor_text(page) == starters["numpy"]

    page.goto(f"{server}/exercises/{SLUG}")  # the plain address: the remembered track
    pressed(page, "torch")
    assert editor_text(page) == starters["torch"]
