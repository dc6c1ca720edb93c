"""A course, start to end, in Chromium: an instructor signs up and creates a course with two
assignments (one due next week, one whose deadline has passed), a learner signs up, joins
with the code, solves both through the exercise page, and the gradebook and its CSV say
one was solved on time and one late."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import Browser, Page, expect

from graders.settings import ROOT
from tests.browser.learner import all_passed, open_exercise, replace_code, results
from tests.catalog import shipped_exercises_dir

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

GC, BUDGET = "gradient-checkpointing", "checkpoint-budget"
CODE = {
    slug: (shipped_exercises_dir() / slug / "numpy" / "solution.py").read_text()
    for slug in (GC, BUDGET)
}
PASSWORD = "a long enough password"
SCREENSHOTS = ROOT / "docs"


def sign_up(page: Page, server: str, username: str, name: str) -> None:
    page.goto(f"{server}/account/signup")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Your name").fill(name)
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("The same password again").fill(PASSWORD)
    page.get_by_role("button", name="Create the account").click()
    expect(page.get_by_role("link", name=name)).to_be_visible()


def add_assignment(page: Page, option: str, deadline: datetime) -> None:
    page.get_by_label("Exercise and track").select_option(label=option)
    page.get_by_label("Deadline, UTC").fill(deadline.strftime("%Y-%m-%dT%H:%M"))
    page.get_by_role("button", name="Add the assignment").click()


def solve(page: Page, server: str, slug: str) -> None:
    open_exercise(page, server, slug)
    page.get_by_role("button", name="NumPy").click()
    replace_code(page, CODE[slug])
    page.get_by_role("button", name="Submit", exact=True).click()
    expect(results(page)).to_contain_text(all_passed(server, slug), timeout=30_000)


def test_a_course_from_sign_up_to_the_gradebook(browser: Browser, server: str) -> None:
    teacher = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(teacher, server, "prof-story", "Professor Story")
    teacher.get_by_role("link", name="Courses").click()
    teacher.get_by_label("Title").fill("Memory-efficient training")
    teacher.get_by_role("button", name="Create the course").click()
    expect(teacher.get_by_role("heading", name="Memory-efficient training")).to_be_visible()
    now = datetime.now(UTC)
    add_assignment(teacher, "Gradient checkpointing (NumPy)", now + timedelta(days=7))
    add_assignment(teacher, "Checkpoints under a memory budget (NumPy)", now - timedelta(hours=1))
    expect(teacher.locator("table.assignments tbody tr")).to_have_count(2)
    join_link = teacher.locator(".join-link").inner_text()
    teacher.screenshot(path=str(SCREENSHOTS / "screenshot-course.png"), full_page=True)

    learner = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    sign_up(learner, server, "learner-story", "Lea Learner")
    learner.goto(join_link)
    learner.get_by_role("button", name="Join the course").click()
    expect(learner.get_by_role("heading", name="Memory-efficient training")).to_be_visible()
    solve(learner, server, GC)
    solve(learner, server, BUDGET)
    learner.goto(join_link.replace("/join/", "/").rsplit("/", 1)[0])  # /courses
    learner.get_by_role("link", name="Memory-efficient training").click()
    rows = learner.locator("table.assignments tbody tr")
    expect(rows.nth(0)).to_contain_text("solved")
    expect(rows.nth(1)).to_contain_text("solved late")

    teacher.reload()
    teacher.get_by_role("link", name="Gradebook").click()
    student = teacher.get_by_role("row").filter(has_text="Lea Learner")
    expect(student.locator("td[data-status='solved']")).to_have_count(1)
    expect(student.locator("td[data-status='solved late']")).to_have_count(1)
    expect(student).to_contain_text("50%")  # the late one does not count
    expect(teacher.locator("tr.solved-counts")).to_contain_text("1 of 1 students")
    teacher.screenshot(path=str(SCREENSHOTS / "screenshot-gradebook.png"), full_page=True)
    with teacher.expect_download() as download:
        teacher.get_by_role("link", name="CSV").click()
    text = download.value.path().read_text(encoding="utf-8")
    (row,) = csv.DictReader(io.StringIO(text))
    assert row["name"] == "Lea Learner" and row["grade"] == "0.5000"
    assert (row[f"{GC} [numpy] solved"], row[f"{GC} [numpy] late"]) == ("yes", "no")
    assert (row[f"{BUDGET} [numpy] solved"], row[f"{BUDGET} [numpy] late"]) == ("yes", "yes")
