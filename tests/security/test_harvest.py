"""No pass read off the grader's own messages (issue 25, point 6).

A learner who cannot solve an exercise submits code that answers each call with a marker
and reads, in the failures, the values the reference gave (``expected 140, got
7000002003``); replayed by call order, they passed the activation-memory track 6/6 on the
sixth Submit, and the solution endpoint then handed over the reference. The guard: a
hidden test shows its expected values only as a summary (shapes, keys, flags, what ran,
what was got), since its inputs are the same on every Submit; ``drill validate`` warns
about a hidden test that shows them in full (``graders.authoring.validate.full_reveal_warnings``).

The harvest (``harvest.py``) is run on every shipped track, read from the catalog, and
must pass no hidden test with what it read off (a test of a rule that code answering with
markers keeps anyway, such as "leaves the inputs alone", passes on its first Submit).
The same harvest on a copy of the issue's exercise with the guard undone (its hidden
tests' ``reveal`` set back to ``"full"``) passes them all and reads the reference
through the API: the guard, and nothing else, is what stops it.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graders.authoring.validate import full_reveal_warnings
from graders.grading.grader import Grader
from graders.grading.references import TestOptions
from tests.app.conftest import assert_error, client_for
from tests.catalog import MEMORY_SECTION, shipped_catalog, shipped_exercises_dir, shipped_tracks
from tests.security.harvest import Harvest, harvest

ISSUE_EXAMPLE = "activation-memory"  # the exercise of the issue's attack (issue 13's section)
NOT_SOLVED = "Solve this track first"


def test_validate_warns_about_each_hidden_test_that_shows_its_values_in_full() -> None:
    def declared(name: str, **options: Any) -> TestOptions:
        values = {"example": False, "rtol": 1e-5, "atol": 1e-8, "exact_dtype": False}
        test_id = re.sub(r"\W+", "_", name)
        return TestOptions(id=test_id, name=name, **{**values, **options})

    tests = [
        declared("an example", example=True, reveal="full"),
        declared("hidden in full", reveal="full"),
        declared("hidden in full, drawn per learner", reveal="full", per_learner=True),
        declared("hidden as a summary", reveal="summary"),
        declared("hidden entirely", reveal="none"),
    ]
    warnings = full_reveal_warnings(tests, "x/numpy")
    # Per-learner draws are the same on each of that learner's Submits: still warned.
    assert [w.split("'")[1] for w in warnings] == [
        "hidden in full",
        "hidden in full, drawn per learner",
    ]
    assert warnings[0] == (
        "x/numpy/tests.py: hidden test 'hidden in full' shows its expected values in full on "
        "inputs that are the same on every Submit: a table of values read off its failures "
        'would pass it; give it reveal="summary" (a warning: this does not fail validation)'
    )


@pytest.mark.catalog
@pytest.mark.sandbox
@pytest.mark.parametrize(("slug", "track"), shipped_tracks())
def test_a_table_of_values_read_off_failures_passes_no_hidden_test(
    seed_grader: Grader, slug: str, track: str
) -> None:
    entry_points = seed_grader.catalog.get(slug).track(track).entry_points

    def submit(code: str) -> dict[str, Any]:
        return seed_grader.grade(seed_grader.catalog.get(slug), track, code, "submit").model_dump(
            mode="json"
        )

    done = harvest(submit, entry_points)
    assert done.hidden > 0, done.describe()
    # No pass came from the values read off: only tests of rules that code answering with
    # markers keeps anyway (it changes no input, runs no nll_loss) pass, on the first Submit.
    assert done.passed == done.first, done.describe()
    assert not done.passed_all, done.describe()


# --- through the app: the reference stays out of reach ---


def submit_through(web: TestClient, slug: str, track: str) -> Any:
    def submit(code: str) -> Mapping[str, Any]:
        body = {"track": track, "code": code, "mode": "submit"}
        response = web.post(f"/api/exercises/{slug}/submissions", json=body)
        assert response.status_code == 200, response.text
        answer: Mapping[str, Any] = response.json()
        return answer

    return submit


def harvest_through_the_api(web: TestClient, slug: str) -> tuple[str, Harvest]:
    (track,) = shipped_catalog().get(slug).tracks
    entry_points = web.get(f"/api/exercises/{slug}").json()["tracks"][track]["entry_points"]
    return track, harvest(submit_through(web, slug, track), entry_points)


@pytest.mark.catalog
@pytest.mark.sandbox
def test_a_learner_whose_passes_came_from_a_table_never_reads_the_reference(
    tmp_path: Path,
) -> None:
    assert ISSUE_EXAMPLE in MEMORY_SECTION
    with client_for(tmp_path / "var", rate_burst=1000) as web:
        track, done = harvest_through_the_api(web, ISSUE_EXAMPLE)
        assert done.passed == set(), done.describe()
        solution = web.get(f"/api/exercises/{ISSUE_EXAMPLE}/solution", params={"track": track})
        assert_error(solution, 403, "forbidden", NOT_SOLVED)


def undo_the_guard(exercise: Path) -> None:
    """The exercise as it was before the guard: its hidden tests show values in full."""
    for tests in exercise.glob("*/tests.py"):
        text = tests.read_text()
        undone = re.sub(r'reveal="(summary|none)"', 'reveal="full"', text)
        assert undone != text, f"{tests}: no reveal option to undo"
        tests.write_text(undone)


@pytest.mark.catalog
@pytest.mark.sandbox
def test_without_the_guard_the_table_passes_and_reads_the_reference(tmp_path: Path) -> None:
    # The proof that the harvest works and that the guard is what stops it.
    exercises = tmp_path / "exercises"
    shutil.copytree(
        shipped_exercises_dir() / ISSUE_EXAMPLE,
        exercises / ISSUE_EXAMPLE,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    undo_the_guard(exercises / ISSUE_EXAMPLE)
    with client_for(tmp_path / "var", exercises, rate_burst=1000) as web:
        track, done = harvest_through_the_api(web, ISSUE_EXAMPLE)
        assert done.passed_all and done.last["status"] == "pass", done.describe()
        assert done.table, "the passes came from values read off the failures"
        solution = web.get(f"/api/exercises/{ISSUE_EXAMPLE}/solution", params={"track": track})
        assert solution.status_code == 200, solution.text
        reference = (exercises / ISSUE_EXAMPLE / track / "solution.py").read_text()
        assert solution.json() == {"track": track, "code": reference}
