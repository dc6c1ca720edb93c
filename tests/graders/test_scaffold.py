"""``drill new``: the scaffold loads, validate refuses it until every placeholder is gone,
and bad input writes nothing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from graders.authoring.scaffold import MARKER, ScaffoldError, create, placeholders
from graders.authoring.validate import validate
from graders.grading.catalog import load_exercise
from graders.grading.grader import Grader
from tests.conftest import make_settings
from tests.graders.test_cli import drill


def drill_new(exercises: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return drill("new", *args, tmp=exercises.parent / "var", DRILL_EXERCISES_DIR=str(exercises))


def test_drill_new_writes_a_package_that_loads_and_says_what_next(tmp_path: Path) -> None:
    done = drill_new(tmp_path, "row-softmax", "--tracks", "numpy,torch")
    assert done.returncode == 0, done.stderr
    exercise = load_exercise(tmp_path / "row-softmax")
    assert list(exercise.tracks) == ["numpy", "torch"]
    assert exercise.track("torch").entry_points == ("row_softmax",)
    assert len(exercise.track("numpy").wrong) == 1
    assert "Next:" in done.stdout and "drill validate row-softmax" in done.stdout
    assert "row_softmax" in done.stdout  # the entry point to name in the statement


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("Row_Softmax",), "is not a slug"),
        (("row-softmax", "--tracks", "jax"), "unknown track jax"),
        (("row-softmax", "--tracks", ","), "unknown track (none given)"),
    ],
)
def test_drill_new_refuses_bad_input_and_writes_nothing(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    done = drill_new(tmp_path, *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_drill_new_never_overwrites_a_package(tmp_path: Path) -> None:
    create(tmp_path, "row-softmax", ["numpy"])
    statement = tmp_path / "row-softmax" / "statement.md"
    statement.write_text("# Mine\n\nrow_softmax, written by hand.\n")
    done = drill_new(tmp_path, "row-softmax")
    assert done.returncode == 2 and "already exists; nothing was written" in done.stderr
    assert statement.read_text() == "# Mine\n\nrow_softmax, written by hand.\n"
    with pytest.raises(ScaffoldError, match="already exists"):
        create(tmp_path, "row-softmax", ["numpy"])


@pytest.mark.sandbox
def test_validate_refuses_placeholders_until_they_are_all_replaced(tmp_path: Path) -> None:
    exercises = tmp_path / "exercises"
    made = create(exercises, "row-softmax", ["numpy", "torch"])
    settings = make_settings(tmp_path / "var", exercises, workers=1)
    with Grader(settings) as grader:
        reports = validate(grader)
    problems = [p for r in reports for p in r.problems]
    assert all(MARKER in p for p in problems), problems
    # Every file with a placeholder is named once, in the report of its track.
    assert sorted(p.split(":")[0] for p in problems) == placeholders(made.folder)

    for path in made.folder.rglob("*"):
        if path.is_file():
            path.write_text(path.read_text().replace(MARKER, "filled in"))
    assert placeholders(made.folder) == []
    with Grader(settings) as grader:
        reports = validate(grader)
    assert [r.ok for r in reports] == [True, True], [r.problems for r in reports]
    assert reports[0].caught == {"returns_its_input.py": ["a two-row input"]}
