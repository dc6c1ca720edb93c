"""Regrading (app/regrade.py) on a copy of gradient-checkpointing, graded by the fake
backend (tests/fakes.py: only the reference solution passes), so the change between two
versions is known: editing the copy's numpy solution makes the old solution's code fail.
The real sandbox and the command line are exercised end to end in
tests/browser/test_regrade.py."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

from app import instructor_auth, regrade, stats
from app.accounts import Accounts
from app.courses import Courses
from app.regrade import RegradeError, Run
from app.store import Store
from app.tables import AccountRow, SubmissionRow, SubmissionTestRow
from drill.commands.regrade import format_regrade
from graders.grading.catalog import Exercise, load_catalog
from graders.grading.grader import Grader
from graders.grading.results import GradeResult, Mode, Status
from tests.app.conftest import client_for
from tests.app.test_instructor import cookie_for
from tests.catalog import shipped_exercises_dir
from tests.conftest import make_settings
from tests.fakes import ReferenceOnlyBackend
from tests.shapes import plain

GC = "gradient-checkpointing"
TOKEN = "s3cret"


@pytest.fixture
def exercises(tmp_path: Path) -> Path:
    folder = tmp_path / "exercises"
    shutil.copytree(shipped_exercises_dir() / GC, folder / GC)
    return folder


def grader_on(tmp: Path, exercises: Path, backend: ReferenceOnlyBackend | None = None) -> Grader:
    settings = make_settings(tmp, exercises)
    grader = Grader(settings, load_catalog(exercises), backend=backend or ReferenceOnlyBackend())
    grader.start()
    return grader


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(f"sqlite:///{tmp_path / 'drill.sqlite'}")
    yield opened
    opened.close()


def submit(
    store: Store, grader: Grader, learner: str, track: str, code: str, mode: str = "submit"
) -> dict[str, Any]:
    exercise = grader.catalog.get(GC)
    store.note_version(GC, exercise.version)
    result = grader.grade(exercise, track, code, mode, learner=learner)  # type: ignore[arg-type]
    return store.save_submission(learner, result, code, exercise.version)


def change_solution(exercises: Path) -> None:
    """A new version in which the old numpy solution's code no longer passes (under the
    fake backend, only the current reference's exact text does)."""
    path = exercises / GC / "numpy" / "solution.py"
    path.write_text(path.read_text() + "\n# fixed\n")


@pytest.fixture
def before(tmp_path: Path, exercises: Path, store: Store) -> dict[str, Any]:
    """Submits graded against the first version: a's solution (pass), b's wrong code
    (fail), a's torch solution (pass), and a Run (never regraded)."""
    grader = grader_on(tmp_path, exercises)
    catalog = grader.catalog.get(GC)
    made = {
        "version": catalog.version,
        "a": submit(store, grader, "a", "numpy", catalog.track("numpy").solution),
        "b": submit(store, grader, "b", "numpy", "def checkpoint_forward(): pass\n"),
        "a_torch": submit(store, grader, "a", "torch", catalog.track("torch").solution),
        "run": submit(store, grader, "b", "numpy", "x = 1\n", mode="run"),
    }
    grader.close()
    return made


def rows(store: Store) -> dict[str, Any]:
    with store.engine.connect() as connection:
        found = connection.execute(select(SubmissionRow)).all()
    return {r.id: r for r in found}


def test_a_regrade_stores_new_results_linked_to_the_old_and_keeps_the_old(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    change_solution(exercises)
    grader = grader_on(tmp_path, exercises)
    old = rows(store)
    run = Run.plan(store, grader, GC)
    # Every Submit graded against the old version, oldest first; not the Run.
    assert [s.id for s in run.submissions] == [
        before["a"]["id"],
        before["b"]["id"],
        before["a_torch"]["id"],
    ]
    seen: list[str] = []
    summary = run.execute(2, lambda item: seen.append(item.old.id))
    grader.close()
    assert sorted(seen) == sorted(s.id for s in run.submissions)
    assert (summary.regraded, summary.changed, summary.to_pass, summary.to_fail) == (3, 1, 0, 1)
    # Which tests changed: every hidden numpy test of a's code now fails.
    numpy_tests = summary.tests["numpy"]
    assert numpy_tests and all((t.to_pass, t.to_fail) == (0, 1) for t in numpy_tests.values())
    assert "torch" not in summary.tests
    now = rows(store)
    for sub_id, row in old.items():  # nothing overwritten
        assert now[sub_id].result == row.result and now[sub_id].status == row.status
    new = {r.regrade_of: r for r in now.values() if r.regrade_of}
    assert set(new) == {before["a"]["id"], before["b"]["id"], before["a_torch"]["id"]}
    a = new[before["a"]["id"]]
    assert (a.learner, a.track, a.mode, a.status, a.regrade_run) == (
        "a",
        "numpy",
        "submit",
        "fail",
        run.id,
    )
    assert a.exercise_version != before["version"] and a.code == now[before["a"]["id"]].code
    shown = store.get_submission(a.id)
    assert shown is not None
    info = shown["regrade"]
    assert (info["of"], info["previous_status"], info["previous_version"]) == (
        before["a"]["id"],
        "pass",
        before["version"],
    )
    assert info["submitted_at"] == before["a"]["created_at"]
    assert {c["now"] for c in info["changed"]} == {"fail"} and {
        c["was"] for c in info["changed"]
    } == {"pass"}
    assert all(c["id"] for c in info["changed"])
    # The learner's standing follows the newest grading: a's numpy track is unsolved now.
    progress = store.progress("a", GC)
    assert progress[GC, "numpy"].solved is False and progress[GC, "torch"].solved is True
    assert progress[GC, "numpy"].attempts == 1  # a regrade is no attempt
    assert progress[GC, "numpy"].last_submission == a.id
    assert store.solved("a") == {GC}  # through torch
    history = store.history("a", GC, "numpy")
    assert [h["regrade_of"] for h in history] == [before["a"]["id"], None]
    # The run is recorded with its summary.
    (recorded,) = regrade.runs(store, GC)
    assert recorded["id"] == run.id and recorded["finished_at"] is not None
    assert recorded["summary"]["to_fail"] == 1 and recorded["summary"]["regraded"] == 3


def test_a_second_run_finds_nothing_and_a_dry_run_stores_nothing(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    change_solution(exercises)
    grader = grader_on(tmp_path, exercises)
    try:
        dry = Run.plan(store, grader, GC, dry_run=True)
        assert dry.execute(1).changed == 1
        assert len(rows(store)) == 4 and regrade.runs(store, GC) == []
        Run.plan(store, grader, GC).execute(1)
        assert len(rows(store)) == 7
        again = Run.plan(store, grader, GC)
        assert again.submissions == []
        assert again.execute(1).regraded == 0 and len(rows(store)) == 7
    finally:
        grader.close()


def superseded(store: Store) -> tuple[set[str], set[str]]:
    """The submissions marked superseded, and those whose test rows are."""
    t = SubmissionTestRow
    with store.engine.connect() as connection:
        tests = connection.execute(select(t.submission_id, t.superseded)).all()
    marked = {sub_id for sub_id, row in rows(store).items() if row.superseded}
    return marked, {sub_id for sub_id, flag in tests if flag}


def test_a_regrade_marks_the_rows_it_replaces_and_a_concurrent_one_changes_nothing(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    change_solution(exercises)
    grader = grader_on(tmp_path, exercises)
    try:
        # Two runs chosen at once (two instructors): the first stores every regrade.
        first, second = Run.plan(store, grader, GC), Run.plan(store, grader, GC)
        first.execute(2)
        now = rows(store)
        replaced = {row.regrade_of for row in now.values() if row.regrade_of}
        assert replaced == {before[k]["id"] for k in ("a", "b", "a_torch")}
        # The rows replaced, and their tests' rows, are marked; nothing else is.
        assert superseded(store) == (replaced, replaced)
        # The second finds each row regraded already (one regrade per row): it stores
        # nothing and marks nothing.
        assert second.execute(2).regraded == 0
        assert rows(store).keys() == now.keys() and superseded(store) == (replaced, replaced)
    finally:
        grader.close()


def test_track_and_since_choose_the_submissions(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    change_solution(exercises)
    grader = grader_on(tmp_path, exercises)
    try:
        torch = Run.plan(store, grader, GC, track="torch")
        assert [s.id for s in torch.submissions] == [before["a_torch"]["id"]]
        assert Run.plan(store, grader, GC, since="2999-01-01").submissions == []
        assert len(Run.plan(store, grader, GC, since="2000-01-01T00:00").submissions) == 3
        # v1 went live before the first Submit; v2 (noted by the plan) after the last.
        assert len(Run.plan(store, grader, GC, since="v1").submissions) == 3
        assert Run.plan(store, grader, GC, since="v2").submissions == []
        assert len(Run.plan(store, grader, GC, since=before["version"][:8]).submissions) == 3
        with pytest.raises(RegradeError, match="has 2 known versions"):
            Run.plan(store, grader, GC, since="v9")
        with pytest.raises(RegradeError, match=r"neither a version .* nor a date"):
            Run.plan(store, grader, GC, since="last tuesday")
    finally:
        grader.close()


def test_statistics_of_each_version_and_the_dashboard_show_the_regrade(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    change_solution(exercises)
    grader = grader_on(tmp_path, exercises)
    run = Run.plan(store, grader, GC)
    run.execute(1)
    new_version = grader.catalog.get(GC).version
    grader.close()
    tests = {"numpy": [], "torch": []}
    old = plain(stats.exercise_stats(store, GC, tests, version=before["version"]))
    new = plain(stats.exercise_stats(store, GC, tests, version=new_version))
    every = plain(stats.exercise_stats(store, GC, tests))
    # Each Submit counts once, in the version of its newest grading: every one was
    # regraded, so v1 counts none now (its gradings are kept: 3 regraded since).
    assert (old["tracks"]["numpy"]["submissions"], old["tracks"]["numpy"]["passed"]) == (0, 0)
    assert (new["tracks"]["numpy"]["submissions"], new["tracks"]["numpy"]["passed"]) == (2, 0)
    assert (every["tracks"]["numpy"]["submissions"], every["tracks"]["numpy"]["passed"]) == (2, 0)
    versions = plain(stats.exercise_versions(store, GC))
    assert [(v["version"], v["number"], v["submissions"], v["regraded"]) for v in versions] == [
        (before["version"], 1, 0, 3),
        (new_version, 2, 3, 0),
    ]
    # The dashboard, on the same database and the new version of the copy.
    store_url = str(store.engine.url)
    with client_for(
        tmp_path / "web", exercises, ReferenceOnlyBackend(), instructor_token=TOKEN, db=store_url
    ) as client:
        client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        page = client.get(f"/instructor/exercises/{GC}").text
        assert f'data-run="{run.id}"' in page
        assert 'data-stat="to-fail">1<' in page and 'data-stat="regraded">3<' in page
        assert "chip-regrade" in page
        # The recent list shows every grading: it says so, beside the counts of Submits.
        assert "The newest 6 gradings of Submits, newest first, 3 of them by a regrade" in page
        assert f'<option value="{new_version}" selected>v2 ({new_version[:8]})' in page
        assert "· 0 Submits (3 regraded since)</option>" in page  # v1
        v1 = client.get(f"/instructor/exercises/{GC}?version={before['version']}").text
        assert "against v1 (" in v1 and "v1 also graded 3 Submits that were regraded since" in v1
        api = client.get(
            f"/api/instructor/exercises/{GC}/stats", headers={"Authorization": f"Bearer {TOKEN}"}
        ).json()
        assert api["version"] == api["current_version"] == new_version
        assert [v["number"] for v in api["versions"]] == [1, 2]
        assert api["tracks"]["numpy"]["submissions"] == 2
        older = client.get(
            f"/api/instructor/exercises/{GC}/stats?version={before['version'][:8]}",
            headers={"Authorization": f"Bearer {TOKEN}"},
        ).json()
        assert (
            older["version"] == before["version"] and older["tracks"]["numpy"]["submissions"] == 0
        )
        assert [v["regraded"] for v in older["versions"]] == [3, 0]
        every_api = client.get(
            f"/api/instructor/exercises/{GC}/stats?version=all",
            headers={"Authorization": f"Bearer {TOKEN}"},
        ).json()
        assert every_api["version"] is None and every_api["tracks"]["numpy"]["submissions"] == 2
        missing = client.get(
            f"/api/instructor/exercises/{GC}/stats?version=abcdef",
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        assert missing.status_code == 404 and "no single version" in missing.json()["message"]
        # The learner sees the regrade: their newest result says what changed.
        mine = client.get(f"/api/submissions/{progress_id(store, 'a')}").json()
        assert mine["regrade"]["previous_status"] == "pass" and mine["status"] == "fail"


def progress_id(store: Store, learner: str) -> str:
    last = store.progress(learner, GC)[GC, "numpy"].last_submission
    assert last is not None
    return last


def test_a_renamed_test_keeps_its_numbers(store: Store) -> None:
    from graders.grading.results import GradeResult, Status, TestResult

    for name in ("old wording", "new wording"):
        result = GradeResult(
            exercise=GC,
            track="numpy",
            mode="submit",
            status=Status.FAIL,
            message="0/1",
            total=1,
            tests=[TestResult(name=name, id="saves_inputs", status=Status.FAIL, message="m")],
        )
        store.save_submission("a", result, "code", "v1")
    body = plain(stats.exercise_stats(store, GC, {"numpy": [("saves_inputs", "new wording")]}))
    assert body["tracks"]["numpy"]["tests"] == [
        {
            "id": "saves_inputs",
            "name": "new wording",
            "runs": 2,
            "failures": 2,
            "not_run": 0,
            "blamed_elsewhere": {},
        }
    ]
    (failure,) = plain(
        stats.common_failures(store, GC, {"numpy": [("saves_inputs", "new wording")]})
    )["numpy"]
    assert (failure["test"], failure["test_id"], failure["count"]) == (
        "new wording",
        "saves_inputs",
        2,
    )


# --- a hidden test added after the Submits (issue 28, point 3) ---

NEW_TEST = "new_rule"
NEW_NAME = "recompute of layer 0 starts from the input (the new rule)"
# A line that marks code as a wrong solution only the new test catches (NewRuleBackend).
MISSES_NEW_RULE = "# misses the new rule"


class NewRuleBackend(ReferenceOnlyBackend):
    """ReferenceOnlyBackend, plus wrong solutions that only the test ``NEW_TEST`` catches:
    the reference's text with the line ``MISSES_NEW_RULE`` passes every test but that one
    (as a known-wrong solution that ``drill validate`` says the new test catches)."""

    def grade(
        self,
        exercise: Exercise,
        track: str,
        code: str,
        mode: Mode,
        job_id: str | None = None,
        variant: int | None = None,
    ) -> GradeResult:
        lines = code.splitlines()
        if MISSES_NEW_RULE not in lines:
            return super().grade(exercise, track, code, mode, job_id, variant)
        clean = "\n".join(line for line in lines if line != MISSES_NEW_RULE)
        result = super().grade(exercise, track, clean, mode, job_id, variant)
        tests = [
            t.model_copy(update={"status": Status.FAIL, "message": "layer 0 replayed wrongly"})
            if t.id == NEW_TEST
            else t
            for t in result.tests
        ]
        passed = sum(t.status == Status.PASS for t in tests)
        return result.model_copy(
            update={
                "tests": tests,
                "passed": passed,
                "status": Status.PASS if passed == len(tests) else Status.FAIL,
                "message": f"{passed}/{len(tests)} tests passed",
            }
        )


def add_hidden_test(exercises: Path) -> None:
    """A new version of the copy with one more hidden numpy test, ``NEW_TEST``."""
    path = exercises / GC / "numpy" / "tests.py"
    path.write_text(
        path.read_text() + f'\n\n@test("{NEW_NAME}", hint=3)\ndef {NEW_TEST}(t):\n    return {{}}\n'
    )


def regrade_table_row(page: str, test_id: str) -> str:
    found = re.search(rf'<tr data-test-id="{re.escape(test_id)}">(.*?)</tr>', page, re.S)
    assert found, f"no row of {test_id} in the regrade table"
    return found.group(1)


def test_a_new_hidden_test_that_fails_counts_as_now_fail(
    tmp_path: Path, exercises: Path, store: Store
) -> None:
    grader = grader_on(tmp_path, exercises, NewRuleBackend())
    solution = grader.catalog.get(GC).track("numpy").solution
    marked = f"{solution}\n{MISSES_NEW_RULE}\n"
    made = {
        "ada": submit(store, grader, "ada", "numpy", solution),
        "bob": submit(store, grader, "bob", "numpy", marked),
        "cy": submit(store, grader, "cy", "numpy", marked),
        "dee": submit(store, grader, "dee", "numpy", "def checkpoint_forward(): pass\n"),
    }
    grader.close()
    # Before the new test, only dee's code fails.
    assert [made[k]["status"] for k in ("ada", "bob", "cy", "dee")] == ["pass"] * 3 + ["fail"]
    assert NEW_TEST not in {t["id"] for t in made["ada"]["tests"]}

    add_hidden_test(exercises)
    grader = grader_on(tmp_path, exercises, NewRuleBackend())
    new_version = grader.catalog.get(GC).version
    run = Run.plan(store, grader, GC)
    summary = run.execute(2)
    grader.close()

    # Whole verdicts: bob's and cy's passed and now fail; ada's passes, dee's fails still.
    assert (summary.regraded, summary.changed) == (4, 2)
    assert (summary.to_pass, summary.to_fail, summary.other) == (0, 2, 0)
    # The new test: it fails in bob's, cy's and dee's code, which it was not in before:
    # 3 now fail. It passes in ada's: that is no "now pass" (it never failed there).
    assert set(summary.tests["numpy"]) == {NEW_TEST}  # no other test changed
    new = summary.tests["numpy"][NEW_TEST]
    assert (new.name, new.to_pass, new.to_fail) == (NEW_NAME, 0, 3)
    assert (new.new, new.new_pass, new.new_fail) == (4, 1, 3)
    (recorded,) = regrade.runs(store, GC)
    assert recorded["summary"]["tests"]["numpy"][NEW_TEST] == {
        "name": NEW_NAME,
        "to_pass": 0,
        "to_fail": 3,
        "stopped": 0,
        "new": 4,
        "new_pass": 1,
        "new_fail": 3,
    }

    # The command line says the same.
    printed = format_regrade(run)
    assert "4 Submits in" in printed and "2 verdicts changed (0 to pass, 2 from pass to fail)" in (
        printed
    )
    line = next(x for x in printed.splitlines() if f"(id {NEW_TEST})" in x)
    assert line.startswith(f"  [numpy] {NEW_NAME} (id {NEW_TEST}): 0 now pass, 3 now fail"), line
    assert "new test in 4 Submits: passes in 1, fails in 3" in line, line
    assert "now pass" in printed and "did not have" in printed  # the legend of "new test"

    # The statistics of the version regraded against agree: 3 of the 4 Submits fail it.
    current = plain(stats.exercise_stats(store, GC, {"numpy": [], "torch": []}, new_version))
    (counted,) = [t for t in current["tracks"]["numpy"]["tests"] if t["id"] == NEW_TEST]
    assert (counted["runs"], counted["failures"]) == (4, new.to_fail)
    assert (current["tracks"]["numpy"]["submissions"], current["tracks"]["numpy"]["passed"]) == (
        4,
        1,
    )

    # And so does the dashboard's table of the run.
    with client_for(
        tmp_path / "web",
        exercises,
        NewRuleBackend(),
        instructor_token=TOKEN,
        db=str(store.engine.url),
    ) as client:
        client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        page = client.get(f"/instructor/exercises/{GC}").text
    row = regrade_table_row(page, NEW_TEST)
    assert re.findall(r'<td class="num"[^>]*>(\d+)</td>', row) == ["0", "3"]
    assert "new test in 4 Submits: passes in 1, fails in 3" in row
    assert 'data-stat="to-fail">2<' in page and 'data-stat="to-pass">0<' in page


def test_a_test_that_passed_and_no_longer_runs_is_not_a_failure() -> None:
    """Per test, "now fail" means it ran and failed (as the statistics count a failure):
    one that passed and did not run now (an earlier test ended the run) is said apart, and
    one that did not run before and fails now is a "now fail"."""
    from graders.grading.results import TestResult

    def result(*statuses: str) -> GradeResult:
        tests = [
            TestResult(name=f"test {i}", id=f"t{i}", status=Status(s), message="")
            for i, s in enumerate(statuses)
        ]
        return GradeResult(
            exercise=GC,
            track="numpy",
            mode="submit",
            status=Status.FAIL,
            message="",
            passed=sum(s == "pass" for s in statuses),
            total=len(statuses),
            tests=tests,
        )

    old = result("pass", "pass", "error", "not_run").model_dump(mode="json")
    new = result("error", "not_run", "pass", "fail")
    changes = regrade.test_changes(old, new)
    item = regrade.Regraded(
        regrade.Stored("s", "ada", "numpy", "v1", regrade.now(), "code", old), new, changes
    )
    summary = regrade.Summary()
    regrade._tally(summary, item)
    tallies = {
        k: (t.to_pass, t.to_fail, t.stopped, t.new) for k, t in summary.tests["numpy"].items()
    }
    assert tallies == {
        "t0": (0, 1, 0, 0),  # pass -> error: now fails
        "t1": (0, 0, 1, 0),  # pass -> not run: no failure of its own, said apart
        "t2": (1, 0, 0, 0),  # error -> pass
        "t3": (0, 1, 0, 0),  # not run -> fail: now fails
    }
    assert (summary.changed, summary.to_fail, summary.to_pass) == (0, 0, 0)  # fail -> fail


# --- the overview, the exercise page, the API and the learners agree (point 1 and 2) ---


def stat_attributes(fragment: str) -> dict[str, Any]:
    """Each ``data-stat`` element of a piece of page: its text, or for a "solved" one the
    pair (solved, learners) of its data attributes."""
    found: dict[str, Any] = {}
    for stat, attributes, text in re.findall(r'data-stat="([\w-]+)"([^>]*)>([^<]*)<', fragment):
        pair = re.search(r'data-solved="(\d+)" data-learners="(\d+)"', attributes)
        found[stat] = (int(pair.group(1)), int(pair.group(2))) if pair else text.strip()
    return found


def overview_numbers(page: str) -> dict[Any, dict[str, Any]]:
    """The overview's numbers: per (exercise, track) row, and per exercise."""
    found: dict[Any, dict[str, Any]] = {}
    for slug, track, cells in re.findall(
        r'<tr data-exercise="([\w-]+)" data-track="(\w+)">(.*?)</tr>', page, re.S
    ):
        found[slug, track] = stat_attributes(cells)
    for slug, body in re.findall(
        r'<tbody class="instructor-exercise-rows" data-exercise="([\w-]+)">(.*?)</tbody>',
        page,
        re.S,
    ):
        found[slug] = {k: v for k, v in stat_attributes(body).items() if k.startswith("exercise")}
    return found


def exercise_page_numbers(page: str) -> dict[str, dict[str, Any]]:
    """The exercise page's numbers per track section, and the whole exercise's ("")."""
    found = {
        track: stat_attributes(section.split("</header>")[0])
        for track, section in re.findall(
            r'<section class="instructor-card track-stats" id="track-(\w+)"(.*?)</section>',
            page,
            re.S,
        )
    }
    header = page.split('class="instructor-card track-stats"')[0]
    found[""] = {k: v for k, v in stat_attributes(header).items() if k.startswith("exercise")}
    return found


def learners_who_solved(store: Store, learners: list[str]) -> dict[str, int]:
    """From each learner's own progress (the catalog's solved marks): per track, and for
    the exercise (""), how many solved it."""
    solved: dict[str, int] = {"": 0, "numpy": 0, "torch": 0}
    for learner in learners:
        progress = store.progress(learner, GC)
        for (_, track), standing in progress.items():
            solved[track] += standing.solved
        solved[""] += any(standing.solved for standing in progress.values())
    return solved


def test_after_a_regrade_the_overview_the_exercise_page_and_the_api_agree(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    change_solution(exercises)  # a's numpy solution fails the new version
    grader = grader_on(tmp_path, exercises)
    Run.plan(store, grader, GC).execute(2)
    grader.close()
    # Each Submit once, by its newest grading: numpy a (now fails) and b (fails); torch a.
    # Learners: a and b sent numpy Submits, a one torch Submit; only a's torch passes.
    expected = {
        "numpy": {"submissions": 2, "passed": 0, "solved": (0, 2)},
        "torch": {"submissions": 1, "passed": 1, "solved": (1, 1)},
    }
    exercise_solved = (1, 2)  # a solved it (in torch), of a and b
    counts = plain(stats.overview(store))
    for track, numbers in expected.items():
        assert counts[GC, track]["submissions"] == numbers["submissions"], (track, counts)
        assert counts[GC, track]["passed"] == numbers["passed"], (track, counts)
        assert counts[GC, track]["learners"] == numbers["solved"][1], (track, counts)
    # The learners' own standing says the same (a regrade is no attempt).
    assert learners_who_solved(store, ["a", "b"]) == {"": 1, "numpy": 0, "torch": 1}
    assert sum(p.attempts for p in store.progress("a", GC).values()) == 2

    bearer = {"Authorization": f"Bearer {TOKEN}"}
    with client_for(
        tmp_path / "web",
        exercises,
        ReferenceOnlyBackend(),
        instructor_token=TOKEN,
        db=str(store.engine.url),
    ) as client:
        client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        overview = client.get("/instructor").text
        pages = {
            chosen: client.get(f"/instructor/exercises/{GC}?version={chosen}").text
            for chosen in ("current", "all")
        }
        apis = {
            chosen: client.get(
                f"/api/instructor/exercises/{GC}/stats?version={chosen}", headers=bearer
            ).json()
            for chosen in ("current", "all")
        }

    shown = overview_numbers(overview)
    for track, numbers in expected.items():
        row = shown[GC, track]
        assert (row["submissions"], row["passed"]) == (
            str(numbers["submissions"]),
            str(numbers["passed"]),
        ), (track, row)
        assert row["solved"] == numbers["solved"], (track, row)
    assert shown[GC]["exercise-solved"] == exercise_solved
    assert "Counting each Submit once, by its newest grading" in overview
    # The exercise page and the API: the current version (every Submit was regraded
    # against it) and every version give the same numbers as the overview.
    for chosen in ("current", "all"):
        numbers_shown = exercise_page_numbers(pages[chosen])
        api = apis[chosen]
        for track, numbers in expected.items():
            page_track = numbers_shown[track]
            assert (page_track["submissions"], page_track["passed"]) == (
                str(numbers["submissions"]),
                str(numbers["passed"]),
            ), (chosen, track, page_track)
            assert page_track["solved"] == numbers["solved"], (chosen, track, page_track)
            api_track = api["tracks"][track]
            assert (api_track["submissions"], api_track["passed"]) == (
                numbers["submissions"],
                numbers["passed"],
            ), (chosen, track)
            assert (api_track["solved"], api_track["learners"]) == numbers["solved"]
        assert numbers_shown[""]["exercise-solved"] == exercise_solved
        assert (api["solved"], api["learners"]) == exercise_solved
    assert "Counting each Submit once, by its newest grading" in pages["current"]
    assert "against v2" in pages["current"] and "whichever version graded it" in pages["all"]

    # A course whose students are a and b says the same in its gradebook.
    accounts, courses = Accounts(store), Courses(store)
    course = courses.create(None, "Regraded")
    for learner in ("a", "b"):
        account = accounts.create_external(learner, None)
        with store.engine.begin() as connection:  # the account these Submits were sent by
            connection.execute(
                update(AccountRow).where(AccountRow.id == account.id).values(learner=learner)
            )
        courses.add_member(course, account, "learner", "code")
    assignments = {track: courses.assign(course.id, GC, track) for track in expected}
    book = courses.gradebook(course)
    for track, numbers in expected.items():
        assert (book.solved_by(assignments[track]), len(book.students)) == (
            numbers["solved"][0],
            2,
        ), track
    a = next(s for s in book.students if s.learner == "a")
    assert book.cell(a.account_id, assignments["numpy"].id).attempts == 1  # no regrade counted
    assert book.cell(a.account_id, assignments["numpy"].id).label == "attempted"  # now fails


def test_a_partial_regrade_is_counted_once_and_said_on_the_page(
    tmp_path: Path, exercises: Path, store: Store, before: dict[str, Any]
) -> None:
    """Only torch regraded: the numpy Submits' newest grading is still against v1. The
    overview and "every version" count them; the current version's page says they are
    not counted there, and each version counts the Submits whose newest grading it made."""
    change_solution(exercises)
    grader = grader_on(tmp_path, exercises)
    Run.plan(store, grader, GC, track="torch").execute(1)
    grader.close()
    counts = plain(stats.overview(store))
    assert (counts[GC, "numpy"]["submissions"], counts[GC, "numpy"]["passed"]) == (2, 1)
    assert (counts[GC, "torch"]["submissions"], counts[GC, "torch"]["passed"]) == (1, 1)
    versions = plain(stats.exercise_versions(store, GC))
    # v1: the two numpy Submits (a third, torch, graded there was regraded against v2).
    assert [(v["number"], v["submissions"], v["regraded"]) for v in versions] == [
        (1, 2, 1),
        (2, 1, 0),
    ]
    with client_for(
        tmp_path / "web",
        exercises,
        ReferenceOnlyBackend(),
        instructor_token=TOKEN,
        db=str(store.engine.url),
    ) as client:
        client.cookies.set(instructor_auth.COOKIE, cookie_for(TOKEN))
        current = client.get(f"/instructor/exercises/{GC}").text
        every = client.get(f"/instructor/exercises/{GC}?version=all").text
        overview = client.get("/instructor").text
    assert exercise_page_numbers(current)["numpy"]["submissions"] == "0"
    assert exercise_page_numbers(current)["torch"]["submissions"] == "1"
    assert "2 more Submits are graded only against another version" in current
    assert exercise_page_numbers(every)["numpy"]["submissions"] == "2"
    assert exercise_page_numbers(every)["numpy"]["passed"] == "1"
    assert overview_numbers(overview)[GC, "numpy"]["submissions"] == "2"
    assert "2 Submits graded only against another version than the current one" in overview
