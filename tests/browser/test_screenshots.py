"""The screenshots in docs/: an exercise after a failing and after a passing Submit, at
1280×720 and 390 px wide, light and dark; plus the catalog and an instructor page.

Each is written to var/screenshots/ on every run (docs/screenshots/ holds the copies
that README.md shows: ``cp var/screenshots/*.png docs/screenshots/`` after a change of
the pages). The test also checks what the pictures are meant to show: the results
summary in view right after Submit, and no sideways scroll.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from graders.settings import ROOT
from tests.browser.learner import all_passed, open_exercise, replace_code, results, some_failed
from tests.catalog import shipped_exercises_dir
from tests.serving import running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

OUT = ROOT / "var" / "screenshots"
SLUG = "gradient-checkpointing"
NUMPY = shipped_exercises_dir() / SLUG / "numpy"
SOLUTION = (NUMPY / "solution.py").read_text()
WRONG = (NUMPY / "wrong" / "saves_references.py").read_text()
TOKEN = "shots-t0ken"
SIZES = {"1280": {"width": 1280, "height": 720}, "390": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    var = tmp_path_factory.mktemp("shots-var")
    with running_server(var, DRILL_INSTRUCTOR_TOKEN=TOKEN) as running:
        httpx.get(f"{running.base}/api/exercises/{SLUG}", timeout=120)  # warm the references
        yield running.base


def summary(page: Page):  # type: ignore[no-untyped-def]
    """The results summary: "N/M tests passed"."""
    return results(page).get_by_text("tests passed").first


def submit(page: Page, code: str, expected: str | re.Pattern[str]) -> None:
    replace_code(page, code)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(expected, timeout=30_000)


# Resolves once nothing has scrolled (the window or any box) for six animation frames.
SETTLED = """() => new Promise((done) => {
    const where = () => [window.scrollY, ...[...document.querySelectorAll("*")]
        .filter((e) => e.scrollTop).map((e) => e.scrollTop)].join();
    let last = null, still = 0;
    const tick = () => {
        const now = where();
        still = now === last ? still + 1 : 0;
        last = now;
        if (still >= 6) done(); else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
})"""


def settle(page: Page) -> None:
    """Wait for a smooth scroll (to the results) to end before a picture."""
    page.evaluate(SETTLED)


def shoot(page: Page, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(OUT / f"{name}.png"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES, ids=SIZES)
def test_an_exercise_after_a_failing_and_a_passing_submit(
    browser: Browser, server: str, scheme: str, size: str
) -> None:
    viewport = SIZES[size]
    context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
    try:
        page = context.new_page()
        open_exercise(page, server)
        page.get_by_role("button", name="NumPy").click()
        shown = ((WRONG, some_failed(server), "fail"), (SOLUTION, all_passed(server), "pass"))
        for code, expected, outcome in shown:
            submit(page, code, expected)
            expect(summary(page)).to_be_in_viewport()  # what the picture is for
            settle(page)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= viewport["width"], f"the page is {width} px wide"
            shoot(page, f"exercise-{outcome}-{size}-{scheme}")
    finally:
        context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_catalog_and_the_dashboard(browser: Browser, server: str, scheme: str) -> None:
    context = browser.new_context(viewport=SIZES["1280"], color_scheme=scheme)  # type: ignore[arg-type]
    try:
        page = context.new_page()
        open_exercise(page, server)
        page.get_by_role("button", name="NumPy").click()
        submit(page, WRONG, some_failed(server))
        submit(page, SOLUTION, all_passed(server))
        page.goto(server)
        expect(page.locator(f'[data-slug="{SLUG}"] .track-chip.is-solved')).to_have_text(
            "NumPy ✓ solved"
        )
        shoot(page, f"catalog-{scheme}")
        page.goto(f"{server}/instructor/login")
        page.get_by_label("Instructor token").fill(TOKEN)
        page.get_by_role("button", name="Log in").click()
        page.goto(f"{server}/instructor/exercises/{SLUG}#recent-heading")
        expect(page.locator(".recent-item").first).to_be_visible()
        shoot(page, f"instructor-recent-{scheme}")
    finally:
        context.close()
