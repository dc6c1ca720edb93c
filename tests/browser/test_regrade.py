"""A real regrade, end to end: a hidden test of a copy of gradient-checkpointing checks
nothing, so a learner's wrong solution passes in the browser; the instructor fixes the
test and runs ``drill regrade``; the command line, the dashboard and the learner's page
all show the verdict that changed. Real server, real sandbox, Chromium."""

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

from graders.settings import ROOT
from tests.browser.learner import GC, GC_WRONG, all_passed, open_exercise, replace_code, results
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
        expect(page.locator(".recent-list .chip-regrade")).to_have_count(1)
        page.locator(".regrades").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "regrade-dashboard.png"))
