"""A real regrade, end to end: a hidden test of a copy of gradient-checkpointing checks
nothing, so a learner's wrong solution passes in the browser; the instructor fixes the
test and runs ``drill regrade``; the command line, the dashboard and the learner's page
all show the verdict that changed. Real server, real sandbox, Chromium. And a hidden test
added to the exercise (docs/authoring.md's worked example), regraded in the real sandbox:
the report counts the Submits it fails as "now fail", as the statistics count them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from app import stats
from app.regrade import Run
from app.store import Store
from drill.commands.regrade import format_regrade
from graders.grading.grader import Grader
from graders.settings import ROOT
from tests.browser.learner import GC, GC_WRONG, all_passed, open_exercise, replace_code, results
from tests.conftest import make_settings
from tests.graders.test_authoring_doc import GUIDE, worked_example
from tests.serving import running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

SLUG = GC.name
TOKEN = "regrade-t0ken"
SHOTS = ROOT / "var" / "screenshots"  # docs/screenshots holds copies


def blind(tests: str, ids: list[str]) -> str:
    """``tests`` with each test of ``ids`` observing nothing (the instructor's bug): a
    ``return {}`` as the first statement of its function (the function's name is the id)."""
    for test_id in ids:
        pattern = re.compile(rf"^def {re.escape(test_id)}\(t\):\n", re.MULTILINE)
        assert pattern.search(tests), f"no function {test_id} in tests.py"
        tests = pattern.sub(lambda m: m.group(0) + "    return {}  # checks nothing\n", tests)
    return tests


def drill(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "drill", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_a_fixed_test_regrades_earlier_submits_everywhere(page: Page, tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    shutil.copytree(GC, exercises / SLUG)
    tests_file = exercises / SLUG / "numpy" / "tests.py"
    fixed = tests_file.read_text()
    var = tmp_path / "var"
    env = {
        **os.environ,
        "DRILL_EXERCISES_DIR": str(exercises),
        "DRILL_VAR_DIR": str(var),
        "DRILL_SANDBOX": "bwrap",
        "DRILL_WORKERS": "2",
    }
    wrong_file = tmp_path / "wrong.py"
    wrong_file.write_text(GC_WRONG)
    # The tests that catch the wrong solution, as the exercise stands.
    graded = drill("grade", SLUG, "numpy", str(wrong_file), "--json", env=env)
    caught = [t for t in json.loads(graded.stdout)["tests"] if t["status"] != "pass"]
    assert graded.returncode == 1 and caught, graded.stderr
    # The bug: those tests observe nothing, so the wrong solution passes.
    tests_file.write_text(blind(fixed, [t["id"] for t in caught]))

    with running_server(var, DRILL_EXERCISES_DIR=str(exercises)) as server:
        open_exercise(page, server.base, SLUG)
        page.get_by_role("button", name="NumPy").click()
        replace_code(page, GC_WRONG)
        page.get_by_role("button", name="Submit", exact=True).click()
        expect(results(page)).to_contain_text(all_passed(server.base), timeout=60_000)

    # The fix, then the regrade (a dry run first: it stores nothing).
    tests_file.write_text(fixed)
    dry = drill("regrade", SLUG, "--dry-run", env=env)
    assert dry.returncode == 0, dry.stderr
    assert "1 verdict changed (0 to pass, 1 from pass to fail)" in dry.stdout, dry.stdout
    assert "Dry run: nothing was stored." in dry.stdout
    done = drill("regrade", SLUG, env=env)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert (
        "Regraded 1 Submit" in out and "1 verdict changed (0 to pass, 1 from pass to fail)" in out
    )
    for test in caught:  # which tests, by name and id
        assert f"[numpy] {test['name']} (id {test['id']}): 0 now pass, 1 now fail" in out, out
    assert "1/1" in done.stderr  # the progress bar reached the end
    run_id = re.search(r"regrade run ([0-9a-f]+)", out)
    assert run_id, out
    again = drill("regrade", SLUG, env=env)
    assert "Nothing to regrade" in again.stdout, again.stdout

    env_server = {"DRILL_EXERCISES_DIR": str(exercises), "DRILL_INSTRUCTOR_TOKEN": TOKEN}
    with running_server(var, **env_server) as server:
        # The learner (same browser, same learner cookie) opens the exercise again.
        open_exercise(page, server.base, SLUG)
        page.get_by_role("button", name="NumPy").click()
        note = page.locator(".results-regrade")
        expect(note).to_contain_text("Regraded after the exercise changed", timeout=30_000)
        expect(note).to_contain_text(f"passed ({len(json.loads(graded.stdout)['tests'])}/")
        expect(note).to_contain_text("now failed")
        for test in caught:
            expect(note).to_contain_text(f"{test['name']}: Passed → Failed")
        # The track is no longer solved: the newest grading of the Submit failed.
        expect(page.locator("#solved-panel")).to_be_hidden()
        expect(page.get_by_text("Not solved yet")).to_be_visible()
        note.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "regrade-learner.png"))
        # The instructor's dashboard lists the run and the tests it changed.
        page.goto(f"{server.base}/instructor/login")
        page.get_by_label("Instructor token").fill(TOKEN)
        page.get_by_role("button", name="Log in").click()
        # The overview counts the Submit once, by its newest grading (it failed), as the
        # exercise's page does below: 1 Submit, none passing, 0 of 1 learner solved it.
        row = page.locator(f'tr[data-exercise="{SLUG}"][data-track="numpy"]')
        expect(row.locator("[data-stat=submissions]")).to_have_text("1")
        expect(row.locator("[data-stat=passed]")).to_have_text("0")
        expect(row.locator("[data-stat=solved]")).to_have_text("0 of 1 learner")
        page.goto(f"{server.base}/instructor/exercises/{SLUG}")
        run = page.locator(f'.regrade-run[data-run="{run_id.group(1)}"]')
        expect(run.locator("[data-stat=regraded]")).to_have_text("1")
        expect(run.locator("[data-stat=to-fail]")).to_have_text("1")
        for test in caught:
            row = run.locator(f'tr[data-test-id="{test["id"]}"]')
            expect(row).to_contain_text(test["name"])
            expect(row.locator("td.num").last).to_have_text("1")
        # The current version's statistics count the regraded Submit, as a failure.
        numpy = page.locator("#track-numpy")
        expect(numpy.locator("[data-stat=submissions]")).to_have_text("1")
        expect(numpy.locator("[data-stat=passed]")).to_have_text("0")
        expect(numpy.locator("[data-stat=solved]")).to_have_text("0 of 1 learner")
        expect(page.locator("[data-stat=counting]")).to_contain_text(
            "Counting each Submit once, by its newest grading, against v2"
        )
        expect(page.locator(".recent-list .chip-regrade")).to_have_count(1)
        page.locator(".regrades").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "regrade-dashboard.png"))


def test_a_new_hidden_test_reports_its_failures_as_now_fail(tmp_path: Path) -> None:
    """The instructor's case (issue 28): a hidden test added after the Submits, which
    ``drill validate`` says catches 5 known-wrong solutions. The regrade's report must
    count the Submits it fails as "now fail" (it did not exist in their old results), as
    the statistics count its failures; where it passes it is neither now pass nor now
    fail."""
    exercises = tmp_path / "exercises"
    shutil.copytree(GC, exercises / SLUG)
    numpy = exercises / SLUG / "numpy"
    solutions = {
        "solution.py": (numpy / "solution.py").read_text(),
        "plain_loops.py": (numpy / "alternatives" / "plain_loops.py").read_text(),
        **{f.name: f.read_text() for f in sorted((numpy / "wrong").glob("*.py"))},
    }
    store = Store(f"sqlite:///{tmp_path / 'drill.sqlite'}")
    settings = make_settings(tmp_path / "var", exercises, workers=2)
    try:
        with Grader(settings) as grader:
            exercise = grader.catalog.get(SLUG)
            store.note_version(SLUG, exercise.version)
            for n, (name, code) in enumerate(solutions.items()):
                result = grader.grade(exercise, "numpy", code, "submit", learner=f"l{n}")
                store.save_submission(f"l{n}", result, code, exercise.version)
        target, code = worked_example()
        tests_file = exercises / target.removeprefix("exercises/")
        tests_file.write_text(tests_file.read_text() + "\n\n" + code)
        new_name = re.search(r'@test\("([^"]+)"', code).group(1)  # type: ignore[union-attr]
        new_id = re.search(r"^def (\w+)\(t\)", code, re.M).group(1)  # type: ignore[union-attr]
        caught = re.search(rf"test '{re.escape(new_name)}' catches (\d+): (.*)", GUIDE.read_text())
        assert caught, "docs/authoring.md no longer says what its new test catches"
        catches = caught.group(2).split(", ")
        assert len(catches) == int(caught.group(1)) == 5

        with Grader(settings) as grader:
            run = Run.plan(store, grader, SLUG)
            assert len(run.submissions) == len(solutions)
            summary = run.execute(2)
            version = grader.catalog.get(SLUG).version
    finally:
        store.close()

    tally = summary.tests["numpy"][new_id]
    # Every Submit's old result lacked the test; the caught ones fail it now.
    assert (tally.new, tally.new_fail, tally.to_fail, tally.to_pass) == (
        len(solutions),
        len(catches),
        len(catches),
        0,
    )
    assert tally.new_pass == len(solutions) - len(catches)  # the others pass it
    # The verdicts: each caught file failed some test already; the correct ones pass still.
    assert (summary.changed, summary.to_pass, summary.to_fail) == (0, 0, 0)
    printed = format_regrade(run)
    assert f"[numpy] {new_name} (id {new_id}): 0 now pass, {len(catches)} now fail" in printed
    # The statistics of the version regraded against count the same failures.
    store = Store(f"sqlite:///{tmp_path / 'drill.sqlite'}")
    try:
        numbers = stats.exercise_stats(store, SLUG, {"numpy": []}, version=version)
    finally:
        store.close()
    (counted,) = [t for t in numbers.tracks["numpy"].tests if t.id == new_id]
    assert (counted.runs, counted.failures) == (len(solutions), len(catches))
    assert numbers.tracks["numpy"].submissions == len(solutions)
