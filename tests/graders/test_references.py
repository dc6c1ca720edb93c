"""Reference observations: determinism, the content-hash cache, and validate's verdicts on
broken exercises."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graders.authoring.validate import validate
from graders.errors import ReferenceFailure
from graders.grading.grader import Grader
from tests.conftest import TEST_EXERCISES, make_settings

pytestmark = pytest.mark.sandbox


@pytest.fixture
def exercises(tmp_path: Path) -> Path:
    folder = tmp_path / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", folder / "double")
    return folder


def _numpy(exercises: Path) -> Path:
    return exercises / "double" / "numpy"


def test_references_are_cached_by_content_hash(tmp_path: Path, exercises: Path) -> None:
    settings = make_settings(tmp_path / "var", exercises, workers=1)
    with Grader(settings) as grader:
        first = grader.reference(grader.catalog.get("double"), "numpy")
    cached = list((tmp_path / "var" / "cache" / "references").glob("*.json"))
    assert [p.stem for p in cached] == [first.key]

    with Grader(settings) as grader:  # same files: served from disk, no reference pool
        again = grader.reference(grader.catalog.get("double"), "numpy")
        assert grader.local._reference_pool is None
    assert again.key == first.key

    tests = _numpy(exercises) / "tests.py"
    tests.write_text(tests.read_text() + "\n# an edit changes the hash\n")
    with Grader(settings) as grader:
        edited = grader.reference(grader.catalog.get("double"), "numpy")
    assert edited.key != first.key


def test_a_nondeterministic_reference_is_refused(tmp_path: Path, exercises: Path) -> None:
    (_numpy(exercises) / "solution.py").write_text(
        "import os\n\ndef double(x):\n    return x * 2 + os.urandom(1)[0]\n"
    )
    settings = make_settings(tmp_path / "var", exercises, workers=1)
    with Grader(settings) as grader, pytest.raises(ReferenceFailure, match="not deterministic"):
        grader.reference(grader.catalog.get("double"), "numpy")


def test_validate_reports_a_starter_reference(tmp_path: Path, exercises: Path) -> None:
    folder = _numpy(exercises)
    shutil.copy(folder / "starter.py", folder / "solution.py")
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        (report,) = validate(grader)
    assert not report.ok
    assert "the reference fails test" in report.problems[0]
    assert "NotImplementedError" in report.problems[0]


def test_validate_reports_an_uncaught_wrong_solution(tmp_path: Path, exercises: Path) -> None:
    (_numpy(exercises) / "wrong" / "same.py").write_text(
        '"""Claims a bug it does not have."""\n\ndef double(x):\n    return 2 * x\n'
    )
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        (report,) = validate(grader)
    assert not report.ok
    assert any("wrong/same.py: passes every hidden test" in p for p in report.problems)
    assert report.caught["add.py"] == ["doubles a matrix", "doubles integers"]


# (what "Breaks:" names, the problem validate reports for it, or None when it is right)
BREAKS: list[tuple[str | None, str | None]] = [
    ("matrix", None),
    ("doubles a matrix", None),  # the test's name serves as well as its id
    ("integers", "breaks 'doubles integers', but 'doubles a matrix' reports it first"),
    ("rows", "'Breaks: rows' names no hidden test (ids: matrix, integers)"),
    (None, "does not say which rule it breaks"),
]


def test_validate_checks_which_test_reports_a_wrong_solution_first(
    tmp_path: Path, exercises: Path
) -> None:
    """A wrong solution names the rule it breaks, and no other test may report it first:
    a learner reads the first failure first (issue 27). Every case is a wrong solution of
    its own in one exercise, so that one validation (one grader's start) judges them all."""
    for number, (breaks, _) in enumerate(BREAKS):
        line = f"\n\nBreaks: {breaks}\n" if breaks else ""
        (_numpy(exercises) / "wrong" / f"case_{number}.py").write_text(
            f'"""Adds two instead of doubling.{line}"""\n\ndef double(x):\n    return x + 2\n'
        )
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        (report,) = validate(grader)
    for number, (breaks, problem) in enumerate(BREAKS):
        name = f"case_{number}.py"
        assert report.first[name][0] == "doubles a matrix", (breaks, report.first)
        found = [p for p in report.problems if f"wrong/{name}" in p]
        if problem is None:
            assert found == [], (breaks, report.problems)
        else:
            assert len(found) == 1 and problem in found[0], (breaks, report.problems)
    # Only the cases' own problems: the rest of the exercise is valid.
    assert len(report.problems) == sum(problem is not None for _, problem in BREAKS)


def test_validate_passes_the_test_exercise(tmp_path: Path, exercises: Path) -> None:
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        (report,) = validate(grader)
    assert report.ok, report.problems
    assert report.examples == 1 and report.hidden == 2


def test_validate_reports_a_nondeterministic_reference(tmp_path: Path, exercises: Path) -> None:
    (_numpy(exercises) / "solution.py").write_text(
        "import os\n\ndef double(x):\n    return x * 2 + os.urandom(1)[0]\n"
    )
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        (report,) = validate(grader)
    assert not report.ok
    assert report.problems[0].startswith("double/numpy/solution.py: not deterministic")


def test_validate_reports_duplicate_test_names(tmp_path: Path, exercises: Path) -> None:
    tests = _numpy(exercises) / "tests.py"
    tests.write_text(
        tests.read_text()
        + '\n\n@test("doubles a matrix")\ndef again(t):\n    return {"x": t.call("double", 1)}\n'
    )
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as grader:
        (report,) = validate(grader)
    assert report.problems == [
        "double/numpy/tests.py: two tests are named 'doubles a matrix'; names must be unique"
    ]


def test_silent_failures_and_blank_names_are_problems() -> None:
    from graders.authoring.validate import name_problems, silent_failures
    from graders.grading.results import GradeResult, Status, TestResult

    def result(message: str) -> GradeResult:
        test = TestResult(name="t1", status=Status.FAIL, message=message, duration_ms=1.0)
        return GradeResult(
            exercise="x",
            track="numpy",
            mode="submit",
            status=Status.FAIL,
            passed=0,
            total=1,
            tests=[test],
            duration_ms=1.0,
            message="",
        )

    assert silent_failures(result("saved: keys differ"), "x/numpy", "wrong/a.py") == []
    assert silent_failures(result("  "), "x/numpy", "wrong/a.py") == [
        "x/numpy/tests.py: test 't1' failed wrong/a.py with an empty message"
    ]
    assert name_problems(["a", " ", "b"], "x/numpy") == [
        "x/numpy/tests.py: a test has a blank name"
    ]


def test_validate_fails_a_test_looser_than_the_tolerance_its_exercise_states() -> None:
    """exercise.toml [tolerance] float64 = {rtol = 1e-9, ...}: a test comparing float64 at
    1e-4 accepts what the statement refuses (issue 27)."""
    from types import SimpleNamespace

    from graders.authoring.validate import tolerance_problems
    from graders.grading.catalog import StatedTolerance
    from graders.grading.references import TestOptions

    stated = {"float64": StatedTolerance(rtol=1e-9, atol=1e-12)}
    exercise = SimpleNamespace(meta=SimpleNamespace(tolerance=stated))
    common = {"example": False, "exact_dtype": False, "reveal": "summary"}
    loose = TestOptions(id="loose", name="loose", rtol=1e-4, atol=1e-5, **common)
    by_dtype = TestOptions(
        id="by_dtype",
        name="by dtype",
        rtol=1e-4,
        atol=1e-5,
        tolerances={"float64": (1e-9, 1e-12)},
        **common,
    )
    exact = TestOptions(id="exact", name="exact", rtol=0, atol=0, **common)
    problems = tolerance_problems(exercise, [loose, by_dtype, exact], "x/torch")  # type: ignore[arg-type]
    assert problems == [
        "x/torch/tests.py: test 'loose' compares float64 values with rtol 0.0001, atol 1e-05, "
        "looser than the statement's rtol 1e-09, atol 1e-12 (exercise.toml [tolerance]); give "
        'it tolerances={"float64": (1e-09, 1e-12)}'
    ]
