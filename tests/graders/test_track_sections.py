"""Track-only parts of a statement (``::: track NAME`` blocks): what loading the catalog
accepts and refuses, each track's view, and what ``drill validate`` says about them and
about the seed tracks' six hidden tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.authoring.validate import SEED_HIDDEN_TESTS, hidden_count_warning, statement_problems
from graders.errors import CatalogError
from graders.grading.catalog import TRACKS, load_catalog, load_exercise
from graders.grading.statement import TRACK_LABELS, TrackBlock, track_blocks, track_view
from tests.catalog import shipped_catalog
from tests.conftest import TEST_EXERCISES

STATEMENT = """\
# Double

Write `double(x)`: return every element doubled.

::: track numpy
## NumPy track

`x` is a NumPy array; `x * 2` makes a new one.
:::

::: track torch
## PyTorch track

`x` is a tensor; keep `requires_grad` as it is.
:::

## Going further

Why is a new array better than changing `x` in place?
"""

TORCH_TESTS = '''\
"""The torch track of the two-track test exercise."""

import torch

from graders.sandbox.testing import example, test


@example("doubles a short tensor", hint=1)
def short(t):
    return {"result": t.call("double", torch.arange(3.0))}


@test("doubles a matrix", hint=1)
def matrix(t):
    return {"result": t.call("double", torch.rand(3, 3))}
'''


def two_tracks(root: Path, statement: str = STATEMENT, slug: str = "double") -> Path:
    """A copy of the ``double`` test exercise with a torch track beside its numpy track,
    under ``root/slug``; returns the exercises folder."""
    package = root / slug
    shutil.copytree(
        TEST_EXERCISES / "double", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    torch = package / "torch"
    (torch / "wrong").mkdir(parents=True)
    (torch / "solution.py").write_text("def double(x):\n    return x * 2\n")
    (torch / "starter.py").write_text("def double(x):\n    raise NotImplementedError\n")
    (torch / "tests.py").write_text(TORCH_TESTS)
    (torch / "wrong" / "add.py").write_text(
        '"""Adds two instead of doubling.\n\nBreaks: matrix\n"""\n\n\ndef double(x):\n'
        "    return x + 2\n"
    )
    meta = package / "exercise.toml"
    meta.write_text(
        meta.read_text().replace(
            "[limits]", '[tracks.torch]\nentry_points = ["double"]\n\n[limits]'
        )
    )
    (package / "statement.md").write_text(statement)
    return root


# --- loading ----------------------------------------------------------------------------


def test_a_statement_with_a_block_per_track_loads(tmp_path: Path) -> None:
    exercise = load_catalog(two_tracks(tmp_path)).get("double")
    assert exercise.statement == STATEMENT
    where = str(exercise.folder / "statement.md")
    assert track_blocks(exercise.statement, where, exercise.tracks) == (
        TrackBlock("numpy", 4, 8),
        TrackBlock("torch", 10, 14),
    )


def test_colons_in_code_are_code_not_markers(tmp_path: Path) -> None:
    statement = "Write `double(x)`.\n\n```text\n::: track jax\n:::\n```\n\n    ::: indented\n"
    exercise = load_catalog(two_tracks(tmp_path, statement)).get("double")
    assert track_blocks(statement, "s.md", exercise.tracks) == ()
    assert track_view(statement, "numpy") == statement


# (a name, the statement, the line at fault, words of the message)
BAD = [
    (
        "unknown-track",
        "`double`\n\n::: track jax\nx\n:::\n",
        3,
        "unknown track 'jax' in '::: track jax' (tracks are named numpy or torch)",
    ),
    (
        "opened-inside-another",
        "`double`\n\n::: track numpy\nx\n\n::: track torch\ny\n:::\n",
        6,
        "'::: track torch' is inside a list, a quote or another track block",
    ),
    (
        "never-closed",
        "`double`\n\n::: track numpy\nx\n",
        3,
        "the block '::: track numpy' is never closed (end it with a line ':::')",
    ),
    (
        "closed-too-short",
        "`double`\n\n:::: track numpy\nx\n:::\n",
        3,
        "never closed (end it with a line '::::')",
    ),
    (
        "stray-close",
        "`double`\n\n::: track numpy\nx\n:::\n:::\n",
        6,
        "':::' closes no track block",
    ),
    (
        "misspelt",
        "`double`\n\n::: trakc numpy\nx\n:::\n",
        3,
        "'::: trakc numpy' is not a track marker; write '::: track numpy' or '::: track torch'",
    ),
    (
        "two-tracks-in-one-marker",
        "`double`\n\n::: track numpy torch\nx\n:::\n",
        3,
        "is not a track marker",
    ),
    (
        "in-a-list",
        "`double`\n\n- an item\n\n  ::: track numpy\n  x\n  :::\n",
        5,
        "inside a list, a quote or another track block; a track block starts at the top level",
    ),
    (
        "in-a-quote",
        "`double`\n\n> ::: track numpy\n> x\n> :::\n",
        3,
        "inside a list, a quote or another track block",
    ),
]


@pytest.mark.parametrize(
    ("statement", "line", "words"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_a_bad_marker_stops_the_load_naming_the_file_and_line(
    tmp_path: Path, statement: str, line: int, words: str
) -> None:
    exercises = two_tracks(tmp_path, statement)
    with pytest.raises(CatalogError) as caught:
        load_catalog(exercises)
    assert caught.value.path == str(exercises / "double" / "statement.md")
    assert caught.value.problem.startswith(f"line {line}: "), caught.value.problem
    assert words in caught.value.problem


def test_a_block_for_a_track_the_exercise_lacks_stops_the_load(tmp_path: Path) -> None:
    package = tmp_path / "double"
    shutil.copytree(TEST_EXERCISES / "double", package)
    (package / "statement.md").write_text("`double`\n\n::: track torch\nTensors.\n:::\n")
    with pytest.raises(CatalogError) as caught:
        load_exercise(package)
    assert str(caught.value) == (
        f"{package / 'statement.md'}: line 3: '::: track torch' names a track this "
        "exercise does not have (its tracks: numpy)"
    )


@pytest.mark.parametrize("line_end", ["\r\n", "\r"])
def test_lines_are_counted_as_the_parser_counts_them(line_end: str) -> None:
    # Characters that str.splitlines breaks at, but Markdown does not: one line here.
    statement = f"`double` \u2028 \x0c{line_end}{line_end}::: track numpy{line_end}x{line_end}"
    with pytest.raises(CatalogError, match="line 3: the block '::: track numpy' is never"):
        track_blocks(statement, "s.md", ["numpy"])


def test_every_track_of_the_catalog_has_a_label() -> None:
    assert set(TRACK_LABELS) == set(TRACKS)


# --- views ----------------------------------------------------------------------------


def test_each_track_reads_the_shared_text_and_its_own_blocks_only() -> None:
    numpy, torch = track_view(STATEMENT, "numpy"), track_view(STATEMENT, "torch")
    for view in (numpy, torch):
        assert "Write `double(x)`" in view and "## Going further" in view
        assert ":::" not in view
        # Removed lines become blank lines: line numbers are the file's.
        assert len(view.split("\n")) == len(STATEMENT.split("\n"))
    assert "x * 2" in numpy and "## NumPy track" in numpy
    assert "tensor" not in numpy and "PyTorch" not in numpy
    assert "requires_grad" in torch and "## PyTorch track" in torch
    assert "NumPy" not in torch and "x * 2" not in torch


def test_a_marker_right_after_a_paragraph_still_separates_it() -> None:
    statement = "Shared line.\n::: track numpy\nNumPy line.\n:::\nShared again.\n"
    assert track_view(statement, "numpy") == "Shared line.\n\nNumPy line.\n\nShared again.\n"
    assert track_view(statement, "torch") == "Shared line.\n\n\n\nShared again.\n"


# --- validate: entry points in each track's view ----------------------------------------


def test_an_entry_point_named_only_in_another_tracks_block_is_a_problem(
    tmp_path: Path,
) -> None:
    statement = "# Double\n\n::: track torch\nWrite `double(x)` for tensors.\n:::\n"
    exercise = load_catalog(two_tracks(tmp_path, statement)).get("double")
    assert statement_problems(exercise, "torch") == []
    assert statement_problems(exercise, "numpy") == [
        "double/statement.md: entry point double is not named in the numpy track's view "
        "(the shared text and its '::: track numpy' blocks)"
    ]


def test_an_entry_point_must_be_named_as_a_word(tmp_path: Path) -> None:
    statement = "# Double\n\nWrite `double_all(x)`, which doubles.\n"
    exercise = load_catalog(two_tracks(tmp_path, statement)).get("double")
    for track in exercise.tracks:
        assert statement_problems(exercise, track) == [
            f"double/statement.md: entry point double is not named in the {track} track's "
            f"view (the shared text and its '::: track {track}' blocks)"
        ]


def test_the_shared_text_names_entry_points_for_every_track(tmp_path: Path) -> None:
    exercise = load_catalog(two_tracks(tmp_path)).get("double")
    assert statement_problems(exercise, "numpy") == statement_problems(exercise, "torch") == []


# --- validate: the seed tracks' six hidden tests -----------------------------------------


def test_a_seed_track_without_six_hidden_tests_gets_a_warning(tmp_path: Path) -> None:
    exercise = load_catalog(two_tracks(tmp_path, slug="gradient-checkpointing")).get(
        "gradient-checkpointing"
    )
    where = "gradient-checkpointing/numpy"
    assert hidden_count_warning(exercise, "numpy", SEED_HIDDEN_TESTS, where) is None
    assert hidden_count_warning(exercise, "numpy", 7, where) == (
        "gradient-checkpointing/numpy/tests.py: 7 hidden tests; this track shipped with 6. "
        "That is fine if you added or removed tests on purpose (this does not fail validation)"
    )
    other = load_catalog(two_tracks(tmp_path / "other")).get("double")
    assert hidden_count_warning(other, "numpy", 7, "double/numpy") is None


# --- the shipped catalog ----------------------------------------------------------------


@pytest.mark.catalog
def test_gradient_checkpointing_keeps_each_tracks_part_to_its_learners() -> None:
    statement = shipped_catalog().get("gradient-checkpointing").statement
    numpy, torch = track_view(statement, "numpy"), track_view(statement, "torch")
    assert "np.array(a, copy=True)" in numpy and "np.array(a, copy=True)" not in torch
    assert "inference_mode" in torch and "inference_mode" not in numpy
    assert "## PyTorch track" not in numpy and "## NumPy track" not in torch
    for view in (numpy, torch):  # the shared rules and worked example stay for both
        assert "## Rules the tests check" in view and "## Going further" in view
        assert "checkpoint_forward(layers, np.array([1.0]), [1, 3])" in view


@pytest.mark.catalog
def test_every_shipped_track_names_its_entry_points_in_its_view() -> None:
    for exercise in shipped_catalog():
        for track in exercise.tracks:
            assert statement_problems(exercise, track) == [], (exercise.slug, track)


# --- drill validate, end to end ---------------------------------------------------------


def validate(exercises: Path, tmp: Path, *slugs: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DRILL_EXERCISES_DIR": str(exercises),
        "DRILL_SANDBOX": "bwrap",
        "DRILL_WORKERS": "1",
        "DRILL_VAR_DIR": str(tmp / "var"),
    }
    return subprocess.run(
        [sys.executable, "-m", "drill", "validate", "--json", *slugs],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.sandbox
def test_validate_fails_a_track_whose_view_misses_an_entry_point(tmp_path: Path) -> None:
    statement = "# Double\n\n::: track torch\nWrite `double(x)` for tensors.\n:::\n"
    done = validate(two_tracks(tmp_path / "exercises", statement), tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    reports = {r["track"]: r for r in json.loads(done.stdout)}
    assert reports["torch"]["ok"] is True, reports["torch"]
    assert reports["numpy"]["problems"] == [
        "double/statement.md: entry point double is not named in the numpy track's view "
        "(the shared text and its '::: track numpy' blocks)"
    ]


@pytest.mark.sandbox
def test_validate_warns_but_passes_a_seed_track_without_six_hidden_tests(
    tmp_path: Path,
) -> None:
    # The test exercise under a seed slug: its tracks have 2 and 1 hidden tests.
    exercises = two_tracks(tmp_path / "exercises", slug="gradient-checkpointing")
    done = validate(exercises, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    reports = {r["track"]: r for r in json.loads(done.stdout)}
    assert all(r["ok"] for r in reports.values()), reports
    for track, report in reports.items():
        hidden = report["hidden"]
        assert hidden != SEED_HIDDEN_TESTS
        assert (
            f"gradient-checkpointing/{track}/tests.py: {hidden} hidden tests; this track shipped "
            "with 6. That is fine if you added or removed tests on purpose (this does not "
            "fail validation)"
        ) in report["warnings"]
