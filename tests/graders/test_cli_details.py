"""Details of the ``drill`` command an instructor meets: help on every option, which
folder ``drill list`` reads and each exercise's version, ``validate --track``, and the
notice of ``drill grade`` while it computes a reference for the first time."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drill.cli import _parser
from graders.grading.catalog import load_catalog
from tests.conftest import TEST_EXERCISES

NOTICE = "computing the reference for double [numpy] (first grade of this version"


def two_track_exercises(tmp: Path) -> Path:
    """An exercises folder holding the small ``double`` exercise with a numpy and a torch
    track (the same files twice: the track's name is all that differs)."""
    folder = tmp / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", folder / "double")
    shutil.copytree(folder / "double" / "numpy", folder / "double" / "torch")
    toml = folder / "double" / "exercise.toml"
    text = toml.read_text().replace(
        "[limits]", '[tracks.torch]\nentry_points = ["double"]\n\n[limits]'
    )
    toml.write_text(text)
    return folder


def drill(
    *args: str, exercises: Path, var: Path, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DRILL_SANDBOX": "bwrap",
        "DRILL_WORKERS": "1",
        "DRILL_VAR_DIR": str(var),
        "DRILL_EXERCISES_DIR": str(exercises),
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


# --- help text ---


def _actions_without_help(parser: argparse.ArgumentParser, path: str) -> list[str]:
    """Every option, positional and command under ``parser`` without help text, named as
    typed ("drill validate --track")."""
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        name = "/".join(action.option_strings) or action.dest
        if not action.help:
            missing.append(f"{path} {name}")
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest: choice.help for choice in action._choices_actions}
            for command, subparser in action.choices.items():
                if not helped.get(command):
                    missing.append(f"{path} {command} (the command itself)")
                missing += _actions_without_help(subparser, f"{path} {command}")
    return missing


def test_every_option_and_positional_of_every_command_has_help() -> None:
    parser = _parser()
    assert _actions_without_help(parser, "drill") == []
    # The walk reaches the nested commands (drill db upgrade), so it can fail.
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {"grade", "validate", "list", "preview", "serve", "db"} <= set(commands.choices)
    bare = argparse.ArgumentParser()
    bare.add_argument("--quiet", action="store_true")
    assert _actions_without_help(bare, "x") == ["x --quiet"]


# --- drill list ---


def test_list_names_its_folder_and_each_version(tmp_path: Path) -> None:
    exercises = two_track_exercises(tmp_path)
    version = load_catalog(exercises).get("double").version
    text = drill("list", exercises=exercises, var=tmp_path / "var")
    assert text.returncode == 0, text.stderr
    first, *rows = text.stdout.splitlines()
    assert first == f"1 exercise in {exercises}:"
    (row,) = rows
    assert row.split()[:4] == ["double", "easy", "numpy,torch", version]

    as_json = drill("list", "--json", exercises=exercises, var=tmp_path / "var")
    assert as_json.returncode == 0, as_json.stderr
    (entry,) = json.loads(as_json.stdout)  # still a list: scripts keep working
    assert entry["version"] == version and entry["tracks"] == ["numpy", "torch"]
    assert entry["folder"] == str(exercises / "double")
    assert f"1 exercise in {exercises}" in as_json.stderr

    # The version is the content's: an edit shows a new one.
    statement = exercises / "double" / "statement.md"
    statement.write_text(statement.read_text() + "\nMind the dtype.\n")
    (edited,) = json.loads(drill("list", "--json", exercises=exercises, var=tmp_path).stdout)
    assert edited["version"] != version


# --- drill validate --track ---


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--track", "jax"), "no track 'jax' in any exercise (tracks: numpy, torch)"),
        (("double", "--track", "jax"), "no track 'jax' in double"),
        (("--track", ""), "--track needs a track name"),
    ],
    ids=["unknown-track", "unknown-track-of-a-named-exercise", "empty"],
)
def test_validate_refuses_an_unknown_track_before_starting(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    exercises = two_track_exercises(tmp_path)
    # A sandbox that cannot start: a usage error must come first, without one.
    done = drill(
        "validate", *args, exercises=exercises, var=tmp_path / "var", DRILL_BWRAP_PATH="/nope"
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert not (tmp_path / "var").exists()


def test_validate_refuses_a_named_exercise_without_the_track(tmp_path: Path) -> None:
    exercises = two_track_exercises(tmp_path)
    shutil.copytree(TEST_EXERCISES / "double", exercises / "single")  # numpy only
    done = drill(
        "validate", "single", "double", "--track", "torch", exercises=exercises, var=tmp_path
    )
    assert done.returncode == 2
    assert "exercise 'single' has no track 'torch' (tracks: numpy)" in done.stderr


@pytest.mark.sandbox
def test_validate_track_validates_only_that_track(tmp_path: Path) -> None:
    exercises = two_track_exercises(tmp_path)
    var = tmp_path / "var"
    one = drill("validate", "--track", "torch", "--json", exercises=exercises, var=var)
    assert one.returncode == 0, one.stdout + one.stderr
    assert [(r["exercise"], r["track"]) for r in json.loads(one.stdout)] == [("double", "torch")]

    both = drill(
        "validate", "double", "--track", "numpy", "--track", "torch", exercises=exercises, var=var
    )
    assert both.returncode == 0, both.stdout + both.stderr
    assert "ok   double [numpy]" in both.stdout and "ok   double [torch]" in both.stdout
    assert "2/2 tracks valid" in both.stdout

    # The mutants follow the same choice (one value, comma-separated, works too).
    mutants = drill(
        "validate", "--track", "numpy", "--mutants", "--json", exercises=exercises, var=var
    )
    assert mutants.returncode == 0, mutants.stdout + mutants.stderr
    (report,) = json.loads(mutants.stdout)
    assert report["track"] == "numpy" and report["mutants"]["mutants"] > 0
    assert "double [numpy]" in mutants.stderr and "double [torch]" not in mutants.stderr

    # A broken track that is not chosen does not matter.
    broken_solution = 'def double(x):\n    raise ValueError("broken")\n'
    (exercises / "double" / "torch" / "solution.py").write_text(broken_solution)
    assert drill("validate", "--track", "numpy", exercises=exercises, var=var).returncode == 0
    broken = drill("validate", "--track", "numpy,torch", exercises=exercises, var=var)
    assert broken.returncode == 1 and "FAIL double [torch]" in broken.stdout


# --- drill grade's notice ---


@pytest.mark.sandbox
def test_grade_says_when_it_computes_the_reference_for_the_first_time(tmp_path: Path) -> None:
    exercises = two_track_exercises(tmp_path)
    solution = str(exercises / "double" / "numpy" / "solution.py")
    var = tmp_path / "var"
    first = drill("grade", "double", "numpy", solution, exercises=exercises, var=var)
    assert first.returncode == 0, first.stdout + first.stderr
    assert NOTICE in first.stderr
    assert NOTICE not in first.stdout  # the result stays clean for a pipe

    again = drill("grade", "double", "numpy", solution, "--json", exercises=exercises, var=var)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "computing the reference" not in again.stderr  # the cache has it now
    assert json.loads(again.stdout)["status"] == "pass"

    # A new version of the exercise needs a new reference: said again.
    (exercises / "double" / "hints" / "2.md").write_text("Multiply.\n")
    edited = drill("grade", "double", "numpy", solution, exercises=exercises, var=var)
    assert edited.returncode == 0 and NOTICE in edited.stderr
