"""Adding a hidden test or an exercise never breaks ``make test`` (issue 15, point 7).

The catalog is data an instructor edits, so the tests that read it (marked ``catalog``)
must take their counts, names and positions from it. This test edits a copy as an
instructor would: a seventh hidden test for a seed track and a whole new exercise in the
memory section. The catalog suites then run on the copy (``DRILL_EXERCISES_DIR``) and must
pass. The same suites on a copy whose new exercise is broken must fail, which shows that
they do read the copy and that they can fail.

What runs: every ``catalog`` test that needs no sandbox, plus the quick sandboxed ones
that grade through the API and the command line (real bubblewrap workers). The browser
tests and ``validate --mutants`` are left out: they take minutes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graders.settings import ROOT
from tests.catalog import shipped_exercises_dir
from tests.fakes import declared_tests

pytestmark = pytest.mark.sandbox  # the subprocesses grade in bubblewrap

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
# Every catalog test without a sandbox, over the whole suite.
WITHOUT_SANDBOX = [*PYTEST, "-m", "catalog and not sandbox", "tests"]
# The quick sandboxed ones: Submit and Run through the API, and ``drill grade`` (each
# of these computes the references of the edited track afresh).
WITH_SANDBOX = [
    *PYTEST,
    "-m",
    "catalog",
    "tests/app/test_api.py",
    "tests/graders/test_cli.py::test_grade_a_correct_file_passes_every_hidden_test",
]

# A seventh hidden test for the NumPy track of gradient-checkpointing, in the statement's
# rules (the output is the last layer's, whatever is checkpointed). Self-contained, so it
# does not depend on what else the file imports.
SEVENTH_TEST = """

import numpy as np  # noqa: E402

from graders.sandbox.checkpointing import counting_layers
from graders.sandbox.testing import test  # noqa: E402


@test("the output does not depend on which layers are checkpointed", hint=1)
def output_whatever_the_checkpoints(t):
    x = np.array([0.5, -2.0, 3.0])
    plain, _ = t.call("checkpoint_forward", counting_layers([np.tanh, np.sin, np.cos]), x, [])
    layers = counting_layers([np.tanh, np.sin, np.cos])
    checkpointed, _ = t.call("checkpoint_forward", layers, x, [0, 2])
    return {"output without checkpoints": plain, "output with checkpoints 0 and 2": checkpointed}
"""

NEW_SLUG = "layer-stack-in-segments"  # a copy of checkpointing-layer-stack


def hidden_count(tests_py: Path) -> int:
    return sum(not t.example for t in declared_tests(tests_py.read_text()))


def edited_copy(where: Path) -> Path:
    """The shipped catalog with an instructor's edits: a seventh hidden test for a seed
    track, and a new exercise among the memory section's (same section, same order
    value as the layer stack, so its title places it between the seed exercises)."""
    exercises = where / "exercises"
    shutil.copytree(
        shipped_exercises_dir(), exercises, ignore=shutil.ignore_patterns("__pycache__")
    )
    tests_py = exercises / "gradient-checkpointing" / "numpy" / "tests.py"
    before = hidden_count(tests_py)
    tests_py.write_text(tests_py.read_text() + SEVENTH_TEST)
    assert hidden_count(tests_py) == before + 1

    new = exercises / NEW_SLUG
    shutil.copytree(exercises / "checkpointing-layer-stack", new)
    toml = new / "exercise.toml"
    title = 'title = "Layer stack in segments"'
    text, titles = re.subn(r'(?m)^title = ".*"$', title, toml.read_text())
    assert titles == 1, "checkpointing-layer-stack/exercise.toml has no title line"
    toml.write_text(text)
    return exercises


def run(command: list[str], exercises: Path, temp: Path) -> subprocess.Popen[str]:
    """Start ``command`` on the catalog in ``exercises``; its temporary folders go under
    ``temp``, so that it never cleans up the outer run's."""
    env = {**os.environ, "DRILL_EXERCISES_DIR": str(exercises)}
    return subprocess.Popen(
        [*command, "--basetemp", str(temp)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return proc.returncode, out


def test_a_new_hidden_test_and_a_new_exercise_break_no_catalog_test(tmp_path: Path) -> None:
    exercises = edited_copy(tmp_path / "good")
    broken = edited_copy(tmp_path / "broken")
    # The new exercise's reference lost its entry point: a catalog test must say so.
    solution = broken / NEW_SLUG / "torch" / "solution.py"
    renamed = solution.read_text().replace(
        "def forward_with_checkpointing(", "def forward_with_checkpoints("
    )
    assert renamed != solution.read_text()
    solution.write_text(renamed)

    # Two cores: the three runs overlap (the broken one stops at its first failure).
    runs = [
        run(WITHOUT_SANDBOX, exercises, tmp_path / "a"),
        run(WITH_SANDBOX, exercises, tmp_path / "b"),
        run([*WITHOUT_SANDBOX, "-x"], broken, tmp_path / "c"),
    ]
    (code_a, out_a), (code_b, out_b), (code_c, out_c) = [finish(p) for p in runs]

    assert code_a == 0, out_a[-6000:]
    assert code_b == 0, out_b[-6000:]
    assert re.search(r"\d+ passed", out_a) and re.search(r"\d+ passed", out_b)
    # 1: tests failed (not 2-5: interrupted, internal or usage error, nothing collected).
    assert code_c == 1, out_c[-6000:]
    assert f"{NEW_SLUG}/torch/solution.py" in out_c, out_c[-6000:]
    assert "entry point forward_with_checkpointing is not defined" in out_c, out_c[-6000:]
