"""The ``drill`` command as a user runs it: real processes, real sandbox."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.catalog import (
    BASICS_SECTION,
    FLOORED,
    declared_counts,
    shipped_exercises_dir,
    shipped_tracks,
)

pytestmark = pytest.mark.sandbox

GC = "gradient-checkpointing"
SOLUTION = shipped_exercises_dir() / GC / "numpy" / "solution.py"
STARTER = shipped_exercises_dir() / GC / "numpy" / "starter.py"


def drill(*args: str, tmp: Path, **extra_env: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DRILL_EXERCISES_DIR": str(shipped_exercises_dir()),
        "DRILL_SANDBOX": "bwrap",
        "DRILL_WORKERS": "1",
        "DRILL_VAR_DIR": str(tmp),
        **extra_env,
    }
    return subprocess.run(
        [sys.executable, "-m", "drill", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


@pytest.mark.catalog
def test_grade_a_correct_file_passes_every_hidden_test(tmp_path: Path) -> None:
    _, hidden = declared_counts(GC, "numpy")
    done = drill("grade", GC, "numpy", str(SOLUTION), tmp=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{hidden}/{hidden} tests passed" in done.stdout
    assert done.stdout.count("PASS") == hidden


@pytest.mark.catalog
def test_run_mode_shows_the_worked_examples(tmp_path: Path) -> None:
    examples, _ = declared_counts(GC, "numpy")
    done = drill("grade", GC, "numpy", str(SOLUTION), "--mode", "run", tmp=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{examples}/{examples} tests passed" in done.stdout


@pytest.mark.catalog
def test_grade_json_and_failing_exit_code(tmp_path: Path) -> None:
    _, hidden = declared_counts(GC, "numpy")
    done = drill("grade", GC, "numpy", str(STARTER), "--json", tmp=tmp_path)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["status"] == "fail" and result["passed"] == 0 and result["total"] == hidden
    assert {t["status"] for t in result["tests"]} == {"error"}
    assert "NotImplementedError" in result["tests"][0]["message"]


@pytest.mark.catalog
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("grade", "no-such-exercise", "numpy", "x.py"), "no exercise 'no-such-exercise'"),
        (("grade", "checkpointing-layer-stack", "numpy", str(SOLUTION)), "has no track 'numpy'"),
        (("grade", "gradient-checkpointing", "numpy", "/nonexistent.py"), "cannot read"),
        (("grade", "gradient-checkpointing", "numpy"), "usage:"),
        (
            ("grade", "gradient-checkpointing", "numpy", str(SOLUTION), "--mode", "x"),
            "invalid choice",
        ),
    ],
    ids=["unknown-exercise", "unknown-track", "missing-file", "missing-argument", "bad-mode"],
)
def test_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    done = drill(*args, tmp=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr


@pytest.mark.catalog
def test_list(tmp_path: Path) -> None:
    done = drill("list", "--json", tmp=tmp_path)
    assert done.returncode == 0
    rows = {row["slug"]: row for row in json.loads(done.stdout)}
    assert rows["gradient-checkpointing"]["tracks"] == ["numpy", "torch"]
    assert rows["checkpointing-layer-stack"]["tracks"] == ["torch"]


@pytest.mark.catalog
def test_validate_every_shipped_exercise_with_its_mutants(tmp_path: Path) -> None:
    # One run proves every shipped track valid, each known mistake caught, and that no
    # mutant of a reference survives without an explanation in mutants.toml. The shipped
    # sections also keep their floors (two examples, five known mistakes, eight
    # alternatives; six hidden tests in the first); the counts of tests are the catalog's
    # own, whatever they are.
    done = drill("validate", "--mutants", "--json", tmp=tmp_path, DRILL_WORKERS="2")
    assert done.returncode == 0, done.stdout + done.stderr
    reports = json.loads(done.stdout)
    assert sorted((r["exercise"], r["track"]) for r in reports) == sorted(shipped_tracks())
    for report in reports:
        where = f"{report['exercise']} [{report['track']}]"
        assert report["ok"] and not report["problems"], report
        assert (report["examples"], report["hidden"]) == declared_counts(
            report["exercise"], report["track"]
        ), where
        assert all(report["caught"].values()), report["caught"]
        if report["exercise"] in FLOORED:
            assert report["examples"] >= 2 and len(report["caught"]) >= 5, where
            assert len(report["alternatives"]) >= 8, where  # other styles, all passing
        if report["exercise"] in BASICS_SECTION:
            assert report["hidden"] >= 6, where
        mutants = report["mutants"]
        assert mutants["mutants"] > 0 and not mutants["not_analysed"], (where, mutants)
        assert mutants["unexplained"] == [], (where, mutants["unexplained"])


def test_validate_exits_1_with_a_line_per_problem_naming_the_file(tmp_path: Path) -> None:
    import shutil

    from tests.conftest import TEST_EXERCISES

    exercises = tmp_path / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", exercises / "double")
    numpy = exercises / "double" / "numpy"
    (numpy / "wrong" / "same.py").write_text(
        '"""Claims a bug."""\n\ndef double(x):\n    return 2 * x\n'
    )
    (numpy / "alternatives").mkdir()
    (numpy / "alternatives" / "adds_to_itself.py").write_text(
        '"""Adds the input to itself."""\n\ndef double(x):\n    return x + x\n'
    )
    (numpy / "alternatives" / "rounds.py").write_text(
        '"""Rounds (not correct after all)."""\n\ndef double(x):\n    return (2 * x).round()\n'
    )
    where = {"DRILL_EXERCISES_DIR": str(exercises)}
    text = drill("validate", tmp=tmp_path / "var", **where)
    as_json = drill("validate", "--json", tmp=tmp_path / "var", **where)
    assert text.returncode == 1 and as_json.returncode == 1
    assert "FAIL double [numpy]" in text.stdout
    assert "wrong/same.py caught by: NOTHING" in text.stdout
    assert "problem: double/numpy/wrong/same.py: passes every hidden test" in text.stdout
    assert "1 correct alternative pass every test: adds_to_itself.py" in text.stdout
    (report,) = json.loads(as_json.stdout)
    assert report["ok"] is False
    assert report["alternatives"] == ["adds_to_itself.py"]
    wrong, refused = report["problems"]
    # A refused alternative names its file, its style and each test it fails.
    assert refused.startswith(
        "double/numpy/alternatives/rounds.py: a correct solution (Rounds (not correct after "
        "all).) is refused: doubles a matrix: In double(x): result: values differ"
    )
    assert wrong == (
        "double/numpy/wrong/same.py: passes every hidden test, but its bug is: Claims a bug."
    )
