"""docs/authoring.md's worked example, followed as an instructor would: its test case is
appended to a copy of the exercise, and validate must report what the guide shows."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from graders.authoring.validate import validate
from graders.grading.grader import Grader
from graders.settings import ROOT
from tests.catalog import declared_counts, shipped_exercises_dir
from tests.conftest import make_settings

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

GUIDE = ROOT / "docs" / "authoring.md"


def worked_example() -> tuple[str, str]:
    """(path the guide appends to, the code it appends)."""
    match = re.search(
        r"<!-- worked-example: (\S+) -->\n```python\n(.*?)```", GUIDE.read_text(), re.DOTALL
    )
    assert match, "docs/authoring.md lost its worked-example block"
    return match.group(1), match.group(2)


def test_the_guides_new_test_validates_and_catches_what_the_guide_says(tmp_path: Path) -> None:
    target, code = worked_example()
    exercises = tmp_path / "exercises"
    shutil.copytree(
        shipped_exercises_dir() / "gradient-checkpointing", exercises / "gradient-checkpointing"
    )
    _, hidden_before = declared_counts("gradient-checkpointing", "numpy")
    tests = exercises / target.removeprefix("exercises/")
    tests.write_text(tests.read_text() + "\n\n" + code)

    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        reports = {r.track: r for r in validate(grader, ["gradient-checkpointing"])}
    numpy = reports["numpy"]
    assert numpy.ok, numpy.problems
    assert numpy.hidden == hidden_before + 1  # the guide's test, beside the track's own

    name = re.search(r'@test\("([^"]+)"', code).group(1)
    shown = re.search(rf"test '{re.escape(name)}' catches (\d+): (.*)", GUIDE.read_text())
    assert shown, "the guide no longer shows what its new test catches"
    assert numpy.catches[name] == shown.group(2).split(", ")
    assert len(numpy.catches[name]) == int(shown.group(1))
