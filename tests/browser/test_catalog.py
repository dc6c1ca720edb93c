"""The catalog in Chromium: a solved track is marked on its card and counted in its
section (tests/app/test_catalog_page.py covers the states one by one)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.learner import all_passed, open_exercise, replace_code, results
from tests.catalog import MEMORY_SECTION_NAME, shipped_catalog, shipped_exercises_dir

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

SLUG = "gradient-checkpointing"
SOLUTION = (shipped_exercises_dir() / SLUG / "numpy" / "solution.py").read_text()


def test_a_solved_track_is_marked_and_counted(page: Page, server: str) -> None:
    members = [e for e in shipped_catalog() if e.meta.section == MEMORY_SECTION_NAME]
    numpy_total = sum("numpy" in e.tracks for e in members)
    page.goto(server)
    section = page.get_by_role("region", name=MEMORY_SECTION_NAME)
    progress = section.locator(".section-progress")
    expect(progress).to_contain_text(f"of {len(members)} solved")
    before = int(progress.locator(".section-count").inner_text().split()[0])
    card = section.get_by_role("listitem").filter(has_text="Gradient checkpointing")
    expect(card.locator(".track-chip")).to_have_text(["NumPy", "PyTorch"])

    open_exercise(page, server, SLUG)
    page.get_by_role("button", name="NumPy").click()
    replace_code(page, SOLUTION)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server), timeout=30_000)

    page.goto(server)
    expect(card.locator(".track-chip")).to_have_text(["NumPy ✓ solved", "PyTorch not yet solved"])
    expect(card).to_have_class("exercise-card is-solved")
    expect(progress.locator(".section-count")).to_have_text(
        f"{before + 1} of {len(members)} solved"
    )
    expect(progress).to_contain_text(f"NumPy 1 of {numpy_total}")
