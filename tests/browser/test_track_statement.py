"""The statement's track-only parts in Chromium: the page shows the selected track's part,
and the track switch swaps it without touching the editor's code or the revealed hints."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.learner import editor_text, open_exercise, replace_code

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]


def test_the_track_switch_swaps_the_statements_track_part(page: Page, server: str) -> None:
    open_exercise(page, server)
    statement = page.locator(".statement")
    numpy_part = statement.get_by_role("heading", name="NumPy track")
    torch_part = statement.get_by_role("heading", name="PyTorch track")
    shared = statement.get_by_role("heading", name="Rules the tests check")
    expect(numpy_part).to_be_visible()
    expect(torch_part).to_be_hidden()
    expect(shared).to_be_visible()
    # The labels that name each part's track are for a page without its script.
    expect(statement.locator(".track-only-label").first).to_be_hidden()

    page.get_by_role("button", name="Hints", exact=True).click()
    page.get_by_role("button", name="Show hint 1").click()
    expect(page.locator("#hint-list li")).to_have_count(1)
    numpy_code = "# my NumPy attempt\n"
    replace_code(page, numpy_code)

    page.get_by_role("button", name="PyTorch").click()
    expect(torch_part).to_be_visible()
    expect(statement.get_by_text("Inference tensors cannot be saved")).to_be_visible()
    expect(numpy_part).to_be_hidden()
    expect(statement.get_by_text("np.array(a, copy=True)")).to_be_hidden()
    expect(shared).to_be_visible()
    expect(page.locator("#hint-list li")).to_have_count(1)

    page.get_by_role("button", name="NumPy").click()
    expect(numpy_part).to_be_visible()
    expect(torch_part).to_be_hidden()
    assert editor_text(page) == numpy_code
    expect(page.locator("#hint-list li")).to_have_count(1)


def test_the_remembered_track_shows_its_part_on_load(page: Page, server: str) -> None:
    open_exercise(page, server)
    page.get_by_role("button", name="PyTorch").click()
    page.reload()
    statement = page.locator(".statement")
    expect(statement.get_by_role("heading", name="PyTorch track")).to_be_visible()
    expect(statement.get_by_role("heading", name="NumPy track")).to_be_hidden()
