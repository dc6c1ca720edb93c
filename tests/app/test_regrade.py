"""Regrading (app/regrade.py) on a copy of gradient-checkpointing, graded by the fake
backend (tests/fakes.py: only the reference solution passes), so the change between two
versions is known: editing the copy's numpy solution makes the old solution's code fail.
The real sandbox and the command line are exercised end to end in
tests/browser/test_regrade.py."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app import instructor_auth, regrade, stats
from app.regrade import RegradeError, Run
from app.store import Store
from app.tables import SubmissionRow
from graders.grading.catalog import load_catalog
from graders.grading.grader import Grader
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


def grader_on(tmp: Path, exercises: Path) -> Grader:
    settings = make_settings(tmp, exercises)
    grader = Grader(settings, load_catalog(exercises), backend=ReferenceOnlyBackend())
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
    assert (old["tracks"]["numpy"]["submissions"], old["tracks"]["numpy"]["passed"]) == (2, 1)
    assert (new["tracks"]["numpy"]["submissions"], new["tracks"]["numpy"]["passed"]) == (2, 0)
    assert every["tracks"]["numpy"]["submissions"] == 4
    versions = plain(stats.exercise_versions(store, GC))
    assert [(v["version"], v["number"], v["submissions"]) for v in versions] == [
        (before["version"], 1, 3),
        (new_version, 2, 3),
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
        assert f'<option value="{new_version}" selected>v2 ({new_version[:8]})' in page
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
        assert older["version"] == before["version"] and older["tracks"]["numpy"]["passed"] == 1
        every_api = client.get(
            f"/api/instructor/exercises/{GC}/stats?version=all",
            headers={"Authorization": f"Bearer {TOKEN}"},
        ).json()
        assert every_api["version"] is None and every_api["tracks"]["numpy"]["submissions"] == 4
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
