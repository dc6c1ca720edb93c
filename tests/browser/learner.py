"""What the learner's browser tests share: finding the editor and the results, typing code."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.catalog import shipped_exercises_dir

GC = shipped_exercises_dir() / "gradient-checkpointing"
GC_SOLUTION = (GC / "numpy" / "solution.py").read_text()
# Fails some hidden tests (its checkpoint_recompute replays from the input).
GC_WRONG = (GC / "numpy" / "wrong" / "replays_from_input.py").read_text()


def counts(server: str, slug: str = GC.name, track: str = "numpy") -> tuple[int, int]:
    """(examples, hidden tests) of a track, as the service counts them: the catalog's
    numbers, which an instructor may change at any time."""
    info = httpx.get(f"{server}/api/exercises/{slug}", timeout=120).json()["tracks"][track]
    return int(info["example_count"]), int(info["test_count"])


def all_passed(server: str, slug: str = GC.name, track: str = "numpy", mode: str = "submit") -> str:
    """The summary of a result where every test passed, "N/N tests passed"."""
    examples, hidden = counts(server, slug, track)
    n = examples if mode == "run" else hidden
    return f"{n}/{n} tests passed"


def some_failed(server: str, slug: str = GC.name, track: str = "numpy") -> re.Pattern[str]:
    """The summary of a Submit where at least one hidden test failed, "K/N tests passed"."""
    _, hidden = counts(server, slug, track)
    fewer = "|".join(str(k) for k in range(hidden))
    return re.compile(rf"\b(?:{fewer})/{hidden} tests passed")


def editor(page: Page) -> Locator:
    return page.get_by_role("textbox", name="Code editor")


def show_code(page: Page) -> None:
    """Below 700 px, the Code tab (a first visit starts on the statement, and a result
    moves to the Results tab); wider, nothing to do."""
    code_tab = page.get_by_role("tab", name="Code")
    if code_tab.is_visible() and code_tab.get_attribute("aria-selected") != "true":
        code_tab.click()


def replace_code(page: Page, code: str) -> None:
    """Replace the editor's text the way a paste does (no auto-indent of typed lines)."""
    show_code(page)
    box = editor(page)
    box.click()
    # Keys typed while the focus is elsewhere are lost without a trace: check where it is,
    # and that the editor holds the code before the test goes on.
    expect(box).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)
    try:
        page.wait_for_function("code => window.DrillPage.editor.getValue() === code", arg=code)
    except PlaywrightTimeoutError:
        held = editor_text(page)
        raise AssertionError(f"the editor does not hold the pasted code: {held!r}") from None


def results(page: Page) -> Locator:
    return page.get_by_role("region", name="Test results")


def summary(page: Page) -> Locator:
    """The results' heading, "N/M tests passed"."""
    return results(page).get_by_role("heading", level=2)


def open_exercise(
    page: Page, server: str, slug: str = "gradient-checkpointing", codemirror: bool = True
) -> None:
    page.goto(f"{server}/exercises/{slug}")
    show_code(page)  # goto waited for the load event: the page script set the tabs up
    expect(editor(page)).to_be_visible()
    if codemirror:  # the real editor, not the fallback: the bundle was built and loaded
        expect(page.locator(".cm-editor .cm-content[aria-label='Code editor']")).to_be_visible()


def editor_text(page: Page) -> str:
    """The editor's whole text, CodeMirror or the textarea."""
    return str(page.evaluate("() => window.DrillPage.editor.getValue()"))


def history_entries(page: Page) -> Locator:
    return page.get_by_role("region", name="Submission history").get_by_role("button")


def submit(page: Page, mode: str = "Submit") -> None:
    """Press Submit (or Run) and wait for this result: one more attempt in the history
    (counted in the page, shown or not: on a narrow screen it is in another tab)."""
    entries = page.locator("#history-body .history-entry")
    expect(page.locator("#history-body")).not_to_contain_text("Loading")
    before = entries.count()
    page.get_by_role("button", name=mode, exact=True).click()
    expect(entries).to_have_count(before + 1, timeout=30_000)
    expect(summary(page)).to_be_visible()
