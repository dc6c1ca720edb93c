"""Test ids (``@test(..., id=...)``): by default the function's name; what results,
statistics and seeds key by; validate refuses two tests with one id. Real sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from graders.authoring.validate import validate
from graders.grading.catalog import load_catalog
from graders.grading.grader import Grader
from tests.conftest import make_settings

pytestmark = pytest.mark.sandbox

HEAD = """
import numpy as np

from graders.sandbox.testing import example, test


@example("doubles an example")
def example(t):
    return {"result": t.call("double", np.arange(3.0))}
"""
DRAWN = """

@test("{name}")
def drawn(t):
    x = np.random.rand(5)
    return {{"input": x, "result": t.call("double", x)}}
"""
PINNED = """

@test("doubles integers", id="integers-v1")
def whatever_the_function_is_called(t):
    return {"result": t.call("double", np.arange(4))}
"""


def exercise(root: Path, tests: str) -> Path:
    folder = root / "exercises" / "ids"
    (folder / "numpy" / "wrong").mkdir(parents=True)
    (folder / "hints").mkdir()
    (folder / "exercise.toml").write_text(
        'title = "Ids"\nsection = "Tests"\ndifficulty = "easy"\nsummary = "Double."\n'
        '[tracks.numpy]\nentry_points = ["double"]\n'
    )
    (folder / "statement.md").write_text("Write `double(x)`: twice `x`.\n")
    (folder / "hints" / "1.md").write_text("Multiply by two.\n")
    (folder / "numpy" / "solution.py").write_text("def double(x):\n    return x * 2\n")
    (folder / "numpy" / "starter.py").write_text("def double(x):\n    pass\n")
    (folder / "numpy" / "wrong" / "adds.py").write_text(
        '"""Adds instead."""\n\ndef double(x):\n    return x + 2\n'
    )
    (folder / "numpy" / "tests.py").write_text(tests)
    return root / "exercises"


@pytest.fixture
def grader_for(tmp_path: Path) -> Iterator[object]:
    started: list[Grader] = []

    def make(tests: str) -> Grader:
        root = tmp_path / f"g{len(started)}"
        grader = Grader(make_settings(root / "var", exercise(root, tests)))
        grader.start()
        started.append(grader)
        return grader

    yield make
    for grader in started:
        grader.close()


def test_ids_default_to_the_function_name_and_results_carry_them(grader_for) -> None:  # type: ignore[no-untyped-def]
    grader = grader_for(HEAD + DRAWN.format(name="doubles a drawn vector") + PINNED)
    ex = grader.catalog.get("ids")
    reference = grader.reference(ex, "numpy")
    assert [(t.id, t.name) for t in reference.tests] == [
        ("example", "doubles an example"),
        ("drawn", "doubles a drawn vector"),
        ("integers-v1", "doubles integers"),
    ]
    result = grader.grade(grader.catalog.get("ids"), "numpy", ex.track("numpy").solution, "submit")
    assert [(t.id, t.name, t.status.value) for t in result.tests] == [
        ("drawn", "doubles a drawn vector", "pass"),
        ("integers-v1", "doubles integers", "pass"),
    ]


def test_rewording_a_name_keeps_the_tests_inputs(grader_for) -> None:  # type: ignore[no-untyped-def]
    before = grader_for(HEAD + DRAWN.format(name="doubles a drawn vector"))
    after = grader_for(HEAD + DRAWN.format(name="doubles five random numbers"))
    inputs = []
    for grader in (before, after):
        reference = grader.reference(grader.catalog.get("ids"), "numpy")
        inputs.append(reference.observations["drawn"]["input"].values)
    assert np.array_equal(inputs[0], inputs[1])  # seeded from the id, not the name


def test_validate_refuses_two_tests_with_one_id(grader_for) -> None:  # type: ignore[no-untyped-def]
    twice = HEAD + DRAWN.format(name="first wording") + DRAWN.format(name="second wording")
    grader = grader_for(twice)
    (report,) = validate(grader, ["ids"])
    assert not report.ok
    problem = " ".join(report.problems)
    assert "'first wording' and 'second wording' have the same id 'drawn'" in problem, problem
    assert 'id="..."' in problem


def test_an_id_that_is_not_a_name_is_refused(grader_for) -> None:  # type: ignore[no-untyped-def]
    bad = HEAD + PINNED.replace('id="integers-v1"', 'id="two words"')
    grader = grader_for(bad)
    (report,) = validate(grader, ["ids"])
    assert not report.ok and "two words" in " ".join(report.problems)
    assert load_catalog(grader.settings.exercises_dir).get("ids")  # the package itself loads
