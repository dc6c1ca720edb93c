"""The instructor dashboard in Chromium: a learner submits twice through the exercise page,
then the instructor logs in and reads the real numbers, chart and code."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from graders.settings import ROOT
from tests.browser.learner import all_passed, open_exercise, replace_code, results, submit
from tests.catalog import shipped_exercises_dir
from tests.serving import running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

TOKEN = "t0ken"
SLUG = "gradient-checkpointing"
NUMPY = shipped_exercises_dir() / SLUG / "numpy"
SOLUTION = (NUMPY / "solution.py").read_text()
WRONG = (NUMPY / "wrong" / "saves_references.py").read_text()  # fails some hidden tests
SCREENSHOT = ROOT / "docs" / "screenshot-instructor.png"


@pytest.fixture(scope="module")
def instructor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``drill serve`` of its own, with the dashboard enabled."""
    var = tmp_path_factory.mktemp("instructor-var")
    with running_server(var, DRILL_INSTRUCTOR_TOKEN=TOKEN) as running:
        httpx.get(f"{running.base}/api/exercises/{SLUG}", timeout=120)  # warm the references
        yield running.base


def submit_through_the_page(page: Page, code: str, expected: str) -> None:
    replace_code(page, code)
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(expected, timeout=30_000)


def test_the_instructor_sees_the_learners_submissions(page: Page, instructor_server: str) -> None:
    server = instructor_server
    # A learner: one correct Submit, then a wrong one.
    open_exercise(page, server, SLUG)
    page.get_by_role("button", name="NumPy").click()
    submit_through_the_page(page, SOLUTION, all_passed(server))
    replace_code(page, WRONG)
    submit(page)  # waits for this attempt in the history
    # What the wrong Submit failed, from the learner's own history: the catalog's tests.
    latest = page.request.get(f"{server}/api/exercises/{SLUG}/submissions?track=numpy").json()
    wrong = page.request.get(f"{server}/api/submissions/{latest[0]['id']}").json()
    hidden, passed = wrong["total"], wrong["passed"]
    failed = [t for t in wrong["tests"] if t["status"] != "pass"]
    assert failed and hidden == passed + len(failed), wrong
    failed_test = failed[0]["name"]

    # The instructor: the dashboard sends to the login form; a wrong token is refused.
    page.goto(f"{server}/instructor")
    expect(page).to_have_url(f"{server}/instructor/login")
    token = page.get_by_label("Instructor token")
    token.fill("not-it")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("not the instructor token")
    page.get_by_label("Instructor token").fill(TOKEN)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(f"{server}/instructor")
    expect(page.get_by_role("heading", name="Exercises", level=1)).to_be_visible()
    row = page.locator("tbody").filter(has_text="Gradient checkpointing").locator("tr").first
    expect(row).to_contain_text("NumPy")
    expect(row.locator("td.num").first).to_have_text("2")
    expect(row).to_contain_text("50%")

    page.get_by_role("link", name="Gradient checkpointing", exact=True).click()
    expect(page).to_have_url(f"{server}/instructor/exercises/{SLUG}")
    expect(page.get_by_role("heading", name="Gradient checkpointing", level=1)).to_be_visible()

    numpy = page.locator("#track-numpy")
    expect(numpy.locator("[data-stat=submissions]")).to_have_text("2")
    expect(numpy.locator("[data-stat=passed]")).to_have_text("1")
    expect(numpy.locator("[data-stat=rate]")).to_contain_text("50%")
    expect(page.locator("#track-torch [data-stat=submissions]")).to_have_text("0")

    # The chart: one bar per hidden test, labelled with its name and failures/runs.
    rows = numpy.locator("svg.failure-chart .chart-row")
    expect(rows).to_have_count(hidden)
    failing = numpy.locator(f'.chart-row[data-test="{failed_test}"]')
    expect(failing.locator(".chart-label")).to_contain_text(failed_test[:40])
    expect(failing.locator(".chart-value")).to_have_text("1/2")
    expect(numpy.locator(".chart-row.has-failures")).to_have_count(len(failed))
    expect(numpy.locator(".chart-row:not(.has-failures) .chart-value")).to_have_text(
        ["0/2"] * passed
    )
    bar = failing.locator("rect.chart-bar").bounding_box()
    whole = failing.locator("rect.chart-bar-runs").bounding_box()
    assert bar and whole and bar["height"] > 0
    assert abs(bar["width"] - whole["width"] / 2) < 2  # 1 failure in 2 runs: half the bar
    passing = numpy.locator(".chart-row:not(.has-failures) rect.chart-bar").first
    assert float(passing.get_attribute("width") or "nan") == 0

    # Each failure message, counted once, under its test.
    failures = numpy.locator(".failure-table tbody tr")
    expect(failures).to_have_count(len(failed))
    first = failures.filter(has_text=failed_test)
    expect(first).to_contain_text(failed[0]["message"].splitlines()[-1].strip())
    expect(first.locator("td").first).to_have_text("1")

    # Recent submissions, newest first, with their code.
    recent = page.locator(".recent-item")
    expect(recent).to_have_count(2)
    expect(recent.first).to_contain_text("fail")
    expect(recent.first).to_contain_text(f"{passed}/{hidden}")
    newest_code = recent.first.locator("pre code")
    expect(newest_code).to_be_visible()
    expect(newest_code).to_have_text(WRONG)
    # Highlighted on the server (Pygments' spans, coloured by app.css): a keyword is not
    # in the colour of the plain text.
    keyword = newest_code.locator("span.k", has_text="def").first
    expect(keyword).to_be_visible()
    name = newest_code.locator("span.nf", has_text="checkpoint_forward")
    expect(name).to_be_visible()
    colour = "(e) => getComputedStyle(e).color"
    assert keyword.evaluate(colour) != newest_code.evaluate(colour)
    recent.nth(1).locator("summary").click()
    expect(recent.nth(1).locator("pre code")).to_have_text(SOLUTION)
    expect(recent.nth(1)).to_contain_text(f"{hidden}/{hidden}")
    csv_link = page.get_by_role("link", name="Export CSV")
    expect(csv_link).to_have_attribute("href", f"/api/instructor/submissions.csv?exercise={SLUG}")

    # Another learner submits: the filter by pseudonym shows one learner's Submits.
    with httpx.Client(base_url=server, timeout=60) as other:
        body = {"track": "numpy", "code": SOLUTION, "mode": "submit"}
        assert other.post(f"/api/exercises/{SLUG}/submissions", json=body).is_success
    page.reload()
    expect(recent).to_have_count(3)
    mine = recent.nth(1).locator(".recent-learner").inner_text().split()[-1]
    theirs = recent.first.locator(".recent-learner").inner_text().split()[-1]
    assert mine != theirs
    recent.nth(1).locator("summary").click()
    recent.nth(1).get_by_role("link", name=f"Only learner {mine}'s submissions").click()
    expect(page).to_have_url(f"{server}/instructor/exercises/{SLUG}?learner={mine}#recent-heading")
    expect(recent).to_have_count(2)
    expect(page.locator(".filter-status")).to_contain_text(f"learner {mine} only")
    expect(page.get_by_label("Learner pseudonym")).to_have_value(mine)
    page.get_by_role("link", name="Clear filter").click()
    expect(recent).to_have_count(3)
    expect(page.get_by_label("Learner pseudonym")).to_have_value("")
    page.get_by_label("Learner pseudonym").fill(theirs.upper())  # typed, in capitals
    page.get_by_label("Learner pseudonym").press("Enter")
    expect(recent).to_have_count(1)
    expect(recent.first).to_contain_text(f"learner {theirs}")
    page.get_by_label("Learner pseudonym").fill("nobody")
    page.get_by_role("button", name="Filter").click()
    expect(page.get_by_role("alert")).to_contain_text("“nobody” is not a learner pseudonym")
    expect(page.get_by_label("Learner pseudonym")).to_have_attribute("aria-invalid", "true")
    expect(recent).to_have_count(3)

    # A phone: the page does not scroll sideways; the chart and the table scroll inside
    # their boxes, a shadow and a note say so, and the keyboard scrolls them.
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{server}/instructor/exercises/{SLUG}")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    boxes = page.locator("#track-numpy .instructor-scroll")
    expect(boxes).to_have_count(2)  # the chart and the failure table
    for i in range(2):
        assert boxes.nth(i).evaluate("(e) => e.scrollWidth > e.clientWidth")
        expect(page.locator("#track-numpy .scroll-cue").nth(i)).to_be_visible()
    boxes.first.focus()
    page.keyboard.press("ArrowRight")
    expect(boxes.first).not_to_have_js_property("scrollLeft", 0)
    page.goto(f"{server}/instructor")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    expect(page.locator(".scroll-cue")).to_be_visible()
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(page.locator(".scroll-cue")).to_be_hidden()  # wide screens need no note
    page.goto(f"{server}/instructor/exercises/{SLUG}")

    if os.environ.get("DRILL_SCREENSHOTS") == "1":  # only the newest code is open
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), full_page=True)

    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(f"{server}/instructor/login")
    page.goto(f"{server}/instructor/exercises/{SLUG}")
    expect(page).to_have_url(re.compile(r"/instructor/login$"))
