"""The catalog in Chromium: a solved track is marked on its card and counted in its
section (tests/app/test_catalog_page.py covers the states one by one)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from graders.settings import ROOT
from tests.browser.learner import open_exercise, replace_code, results

pytestmark = pytest.mark.sandbox

SLUG = "gradient-checkpointing"
SOLUTION = (ROOT / "exercises" / SLUG / "numpy" / "solution.py").read_text()


def test_a_solved_track_is_marked_and_counted(page: Page, server: str) -> None:
    page.goto(server)
    section = page.get_by_role("region", name="Memory and autograd")
    progress = section.locator(".section-progress")
    expect(progress).to_contain_text("of 7 solved")
    before = int(progress.locator(".section-count").inner_text().split()[0])
    card = section.get_by_role("listitem").filter(has_text="Gradient checkpointing")
    expect(card.locator(".track-chip")).to_have_text(["NumPy", "PyTorch"])

    open_exercise(page, server, SLUG)
    page.get_by_role("button", name="NumPy").click()
    replace_code(page, SOLUTION)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text("6/6 tests passed", timeout=30_000)

    page.goto(server)
    expect(card.locator(".track-chip")).to_have_text(["NumPy ✓ solved", "PyTorch not yet solved"])
    expect(card).to_have_class("exercise-card is-solved")
    expect(progress.locator(".section-count")).to_have_text(f"{before + 1} of 7 solved")
    expect(progress).to_contain_text("NumPy 1 of 3")
