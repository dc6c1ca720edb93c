"""``drill validate --mutants``: the mutator's operators, ids, skips, mutants.toml, and one
run end to end on a tiny exercise whose weak test lets a known mutant survive."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from drill.cli import format_mutants
from graders.authoring.mutants import operators
from graders.authoring.mutants.explanations import load_explanations
from graders.authoring.mutants.operators import _Candidate, generate
from graders.authoring.mutants.report import MutantReport, Survivor
from graders.authoring.mutants.runner import analyse_track
from graders.errors import CatalogError
from graders.grading.catalog import load_catalog
from graders.grading.grader import Grader
from tests.catalog import shipped_exercises_dir
from tests.conftest import make_settings


def ids(source: str) -> list[str]:
    return [m.id for m in generate(textwrap.dedent(source)).mutants]


def codes(source: str) -> dict[str, str]:
    """Mutant id -> the mutant's code, without the ``def`` line (one-function snippets)."""
    return {
        m.id: "\n".join(line.strip() for line in m.code.splitlines()[1:])
        for m in generate(textwrap.dedent(source)).mutants
    }


# --- each operator, on small snippets ---------------------------------------------------


@pytest.mark.parametrize(
    ("op", "flips"),
    [
        ("<", ["<=", ">"]),
        ("<=", ["<", ">="]),
        (">", [">=", "<"]),
        (">=", [">", "<="]),
        ("==", ["!="]),
        ("!=", ["=="]),
        ("in", ["not in"]),
        ("not in", ["in"]),
        ("is", ["is not"]),
        ("is not", ["is"]),
    ],
)
def test_flip_compare(op: str, flips: list[str]) -> None:
    made = codes(f"def f(a, b):\n    return a {op} b\n")
    assert made == {f"flip-compare@2:12 '{op}' -> '{new}'": f"return a {new} b" for new in flips}


def test_flip_compare_in_a_chain_names_each_operator_by_its_left_operand() -> None:
    assert ids("def f(a, b):\n    return a < b < c\n") == [
        "flip-compare@2:12 '<' -> '<='",
        "flip-compare@2:12 '<' -> '>'",
        "flip-compare@2:16 '<' -> '<='",
        "flip-compare@2:16 '<' -> '>'",
    ]


def test_off_by_one_on_integer_literals_negative_ones_included() -> None:
    assert codes("def f(x):\n    return x[2] + x[-1]\n") == {
        "off-by-one@2:14 '2' -> '3'": "return x[3] + x[-1]",
        "off-by-one@2:14 '2' -> '1'": "return x[1] + x[-1]",
        "off-by-one@2:21 '-1' -> '0'": "return x[2] + x[0]",
        "off-by-one@2:21 '-1' -> '-2'": "return x[2] + x[-2]",
    }


def test_off_by_one_leaves_bools_floats_and_strings_alone() -> None:
    assert ids("def f(x):\n    return g(x, True, 0.5, 'a')\n") == []


def test_off_by_one_on_range_arguments_and_slice_bounds_without_a_literal() -> None:
    made = codes(
        """\
        def f(xs, n):
            for i in range(len(xs)):
                g(xs[i:n])
        """
    )
    assert {k: v for k, v in made.items() if k.startswith("off-by-one")} == {
        "off-by-one@2:20 'len(xs)' -> 'len(xs) + 1'": "for i in range(len(xs) + 1):\ng(xs[i:n])",
        "off-by-one@2:20 'len(xs)' -> 'len(xs) - 1'": "for i in range(len(xs) - 1):\ng(xs[i:n])",
        "off-by-one@3:14 'i' -> 'i + 1'": "for i in range(len(xs)):\ng(xs[i + 1:n])",
        "off-by-one@3:14 'i' -> 'i - 1'": "for i in range(len(xs)):\ng(xs[i - 1:n])",
        "off-by-one@3:16 'n' -> 'n + 1'": "for i in range(len(xs)):\ng(xs[i:n + 1])",
        "off-by-one@3:16 'n' -> 'n - 1'": "for i in range(len(xs)):\ng(xs[i:n - 1])",
    }


def test_a_bound_with_its_own_literal_is_shifted_through_the_literal_only() -> None:
    assert ids("def f(xs, i):\n    return xs[i + 1:]\n") == [
        "swap-sign@2:15 '+' -> '-'",
        "off-by-one@2:19 '1' -> '2'",
        "off-by-one@2:19 '1' -> '0'",
    ]


def test_swap_bool() -> None:
    assert codes("def f(a, b):\n    return a and b\n") == {
        "swap-bool@2:12 'and' -> 'or'": "return a or b"
    }
    assert codes("def f(a, b):\n    return a or b\n") == {
        "swap-bool@2:12 'or' -> 'and'": "return a and b"
    }


def test_swap_sign_only_in_index_arithmetic() -> None:
    assert ids("def f(x, y):\n    return x + y\n") == []  # arithmetic on values: left alone
    assert ids("def f(xs, i, j):\n    return xs[i - j]\n") == ["swap-sign@2:15 '-' -> '+'"]
    assert codes("def f(i):\n    i -= 1\n    return i\n") == {
        "swap-sign@2:5 '-=' -> '+='": "i += 1\nreturn i",
        "remove-stmt@2:5 'i -= 1' removed": "return i",
        "off-by-one@2:10 '1' -> '2'": "i -= 2\nreturn i",
        "off-by-one@2:10 '1' -> '0'": "i -= 0\nreturn i",
    }


@pytest.mark.parametrize(
    ("call", "dropped"),
    [
        ("x.copy()", "x"),
        ("x.clone()", "x"),
        ("x.detach()", "x"),
        ("np.copy(x)", "x"),
        ("numpy.copy(x)", "x"),
        ("torch.clone(x)", "x"),
        ("copy.copy(x)", "x"),
        ("copy.deepcopy(x)", "x"),
        ("deepcopy(x)", "x"),
    ],
)
def test_drop_copy(call: str, dropped: str) -> None:
    assert codes(f"def f(x):\n    return {call}\n") == {
        f"drop-copy@2:12 '{call}' -> '{dropped}'": f"return {dropped}"
    }


def test_drop_copy_in_a_chain_drops_one_link_at_a_time() -> None:
    assert codes("def f(x):\n    return x.detach().clone()\n") == {
        "drop-copy@2:12 'x.detach().clone()' -> 'x.detach()'": "return x.detach()",
        "drop-copy@2:12 'x.detach()' -> 'x'": "return x.clone()",
    }


def test_remove_with_keeps_the_body() -> None:
    made = codes(
        """\
        def f(x):
            with torch.no_grad():
                y = g(x)
            return y
        """
    )
    assert made == {"remove-with@2:5 'with torch.no_grad()' removed": "y = g(x)\nreturn y"}


def test_remove_with_of_several_context_managers_removes_one_at_a_time() -> None:
    made = codes(
        """\
        def f(x):
            with torch.no_grad(), open(x) as fh:
                return fh
        """
    )
    assert made == {
        "remove-with@2:5 'with torch.no_grad()' removed": "with open(x) as fh:\nreturn fh",
        "remove-with@2:5 'with open(x) as fh' removed": "with torch.no_grad():\nreturn fh",
    }


def test_keyword_bools_are_flipped_and_every_keyword_removed() -> None:
    assert codes("def f(m, x):\n    return checkpoint(m, x, use_reentrant=False, dim=d)\n") == {
        "keyword@2:29 'use_reentrant=False' -> 'use_reentrant=True'": (
            "return checkpoint(m, x, use_reentrant=True, dim=d)"
        ),
        "keyword@2:29 'use_reentrant=False' removed": "return checkpoint(m, x, dim=d)",
        "keyword@2:50 'dim=d' removed": "return checkpoint(m, x, use_reentrant=False)",
    }


def test_max_min() -> None:
    assert codes("def f(x):\n    return max(x) + np.argmin(x)\n") == {
        "max-min@2:12 'max' -> 'min'": "return min(x) + np.argmin(x)",
        "max-min@2:21 'argmin' -> 'argmax'": "return max(x) + np.argmax(x)",
    }


def test_sorted_reverse() -> None:
    assert codes("def f(x):\n    return sorted(x)\n") == {
        "sorted-reverse@2:12 'reverse=True' added": "return sorted(x, reverse=True)"
    }
    assert codes("def f(x):\n    return sorted(x, reverse=True)\n") == {
        "sorted-reverse@2:22 'reverse=True' -> 'reverse=False'": "return sorted(x, reverse=False)"
    }
    assert codes("def f(x, r):\n    return sorted(x, reverse=r)\n") == {
        "sorted-reverse@2:22 'reverse=r' -> 'reverse=not (r)'": "return sorted(x, reverse=not r)"
    }


def test_break_continue() -> None:
    made = codes(
        """\
        def f(xs):
            for x in xs:
                if x:
                    break
                g(x)
        """
    )
    assert made == {
        "break-continue@4:13 'break' -> 'continue'": "for x in xs:\nif x:\ncontinue\ng(x)",
        "remove-stmt@4:13 'break' removed": "for x in xs:\nif x:\npass\ng(x)",
        "remove-stmt@5:9 'g(x)' removed": "for x in xs:\nif x:\nbreak",
    }


def test_remove_stmt_only_where_the_code_still_runs_without_it() -> None:
    made = ids(
        '''\
        def f(x, saved):
            """A docstring is never removed."""
            y = g(x)
            y = h(y)
            x = k(x)
            saved[0] = y
            saved.append(y)
            if y:
                return y
            return x
        '''
    )
    removed = [i for i in made if i.startswith("remove-stmt")]
    assert removed == [
        "remove-stmt@4:5 'y = h(y)' removed",  # a rebinding: the old value lives on
        "remove-stmt@5:5 'x = k(x)' removed",  # a parameter rebound
        "remove-stmt@6:5 'saved[0] = y' removed",  # a store into a container
        "remove-stmt@7:5 'saved.append(y)' removed",  # a call for its effect
    ]  # not the first binding of y, not the docstring, not a return


# --- ids, skips ---------------------------------------------------------------------


GC = shipped_exercises_dir() / "gradient-checkpointing"


def test_ids_are_stable_unique_and_name_the_place_in_the_file() -> None:
    source = textwrap.dedent(
        """\
        def f(xs, i):
            if i < 3:
                return xs[i + 1:].copy()
            return max(xs)
        """
    )
    first, again = generate(source), generate(source)
    assert [m.id for m in first.mutants] == [m.id for m in again.mutants]
    assert len({m.id for m in first.mutants}) == len(first.mutants)
    for mutant in first.mutants:
        assert re.fullmatch(r"[a-z-]+@\d+:\d+ .+", mutant.id)
        assert mutant.id == f"{mutant.operator}@{mutant.line}:{mutant.col} {mutant.description}"
    # Code below a mutant does not move its id; a line above does.
    below = generate(source + "\n\ndef g(x):\n    return x > 0\n")
    assert {m.id for m in first.mutants} <= {m.id for m in below.mutants}
    above = generate("import numpy\n" + source)
    assert "flip-compare@3:8 '<' -> '<='" in {m.id for m in above.mutants}


def test_the_diff_is_of_unparsed_code_so_formatting_does_not_show() -> None:
    made = generate("def f(a,b):\n    # a comment\n    return (a  <  b)\n")
    assert made.original == "def f(a, b):\n    return a < b"
    assert made.mutants[0].diff == (
        "--- solution.py\n+++ mutant\n@@ -1,2 +1,2 @@\n def f(a, b):\n"
        "-    return a < b\n+    return a <= b"
    )


def test_identical_and_duplicate_mutants_are_skipped() -> None:
    made = generate("def f(x, y):\n    if x:\n        pass\n    return y.copy().copy()\n")
    assert made.skipped == {
        "remove-stmt@3:9 'pass' removed": "identical to the reference",
        "drop-copy@4:12 'y.copy()' -> 'y'": (
            "same code as drop-copy@4:12 'y.copy().copy()' -> 'y.copy()'"
        ),
    }
    assert [m.id for m in made.mutants] == ["drop-copy@4:12 'y.copy().copy()' -> 'y.copy()'"]


def test_mutants_that_do_not_compile_are_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    real = operators._candidates

    def with_a_stray_break(number: int, site: operators._Site) -> list[_Candidate]:
        out = real(number, site)
        if isinstance(site.node, ast.Return):
            out.append(_Candidate("test", number, site.node, "stray", lambda _n: ast.Break()))
        return out

    monkeypatch.setattr(operators, "_candidates", with_a_stray_break)
    made = generate("def f(x):\n    return x\n")
    assert made.mutants == []
    assert list(made.skipped) == ["test@2:5 stray"]
    assert made.skipped["test@2:5 stray"].startswith("does not compile ('break' outside loop")


@pytest.mark.catalog
def test_every_mutant_of_the_seed_references_compiles_and_changes_the_code() -> None:
    for path in sorted(GC.glob("*/solution.py")):
        made = generate(path.read_text())
        assert made.mutants, path
        assert len({m.code for m in made.mutants}) == len(made.mutants)
        assert all(m.code != made.original and m.diff for m in made.mutants)


# --- mutants.toml -------------------------------------------------------------------


def test_explanations_load_from_the_track_folder(tmp_path: Path) -> None:
    assert load_explanations(tmp_path) == {}
    (tmp_path / "mutants.toml").write_text(
        "[survivors]\n\"flip-compare@12:15 '<' -> '<='\" = \"  equivalent: never equal  \"\n"
    )
    assert load_explanations(tmp_path) == {
        "flip-compare@12:15 '<' -> '<='": "equivalent: never equal"
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[survivors\n", "not valid TOML"),
        ('[notes]\n"x" = "y"\n', "notes: unknown field (only [survivors])"),
        ('survivors = "x"\n', "survivors: must be a table"),
        ('[survivors]\n"x" = 3\n', "the reason must be a text"),
        ('[survivors]\n"x" = " "\n', "the reason must be a text"),
    ],
)
def test_a_malformed_mutants_toml_names_the_file(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "mutants.toml").write_text(text)
    with pytest.raises(CatalogError, match=re.escape(message)) as caught:
        load_explanations(tmp_path)
    assert "mutants.toml" in str(caught.value)


def test_the_report_separates_explained_unexplained_and_stale() -> None:
    report = MutantReport("x", "numpy", "x/numpy", mutants=3)
    report.killed = {"a@1:1 k": ["test one"]}
    report.survivors = [Survivor("b@2:1 s", "--- d", None), Survivor("c@3:1 e", "", "equivalent")]
    report.stale, report.unneeded = ["gone@9:9 z"], ["a@1:1 k"]
    text = format_mutants(report)
    assert text.splitlines() == [
        "       mutants: 3 mutants, 1 killed, 2 survived (1 explained, 1 unexplained)",
        "       survivor b@2:1 s",
        "           --- d",
        "       explained c@3:1 e: equivalent",
        "  warning: x/numpy/mutants.toml: explains 'gone@9:9 z', but no such mutant exists (stale)",
        "  warning: x/numpy/mutants.toml: explains 'a@1:1 k', but a test kills it now",
    ]
    as_dict = report.as_dict()
    assert as_dict["survived"] == 2
    assert [s["id"] for s in as_dict["unexplained"]] == ["b@2:1 s"]  # type: ignore[index]
    assert [s["reason"] for s in as_dict["explained"]] == ["equivalent"]  # type: ignore[index]


# --- end to end, in the sandbox -----------------------------------------------------

SOURCE = '''\
def count_below(values, limit):
    """How many of ``values`` are strictly below ``limit``."""
    count = 0
    for value in values:
        if value < limit:
            count += 1
    return count
'''
WEAK_TESTS = """\
from graders.sandbox.testing import example, test


@example("counts a short list", hint=1)
def short(t):
    return {"count": t.call("count_below", [1, 5, 9], 4)}


@test("counts the values below the limit", hint=1)
def below(t):
    return {"count": t.call("count_below", [1, 5, 9, 2, 3], 4)}
"""
STRONG_TEST = """

@test("a value equal to the limit is not below it", hint=1)
def equal(t):
    return {"count": t.call("count_below", [4, 1, 4], 4)}
"""
SURVIVOR = "flip-compare@5:12 '<' -> '<='"
STALE = "off-by-one@99:1 '7' -> '8'"


def make_exercise(folder: Path) -> Path:
    root = folder / "count-below"
    track = root / "numpy"
    (root / "hints").mkdir(parents=True)
    track.mkdir()
    (root / "exercise.toml").write_text(
        'title = "Count below"\nsection = "Basics"\ndifficulty = "easy"\n'
        'summary = "Count the values below a limit."\n'
        '[tracks.numpy]\nentry_points = ["count_below"]\n'
        "[limits]\ncpu_seconds = 2\nwall_seconds = 3\nmemory_mb = 512\n"
    )
    (root / "statement.md").write_text("Write `count_below(values, limit)`: values < limit.\n")
    (root / "hints" / "1.md").write_text("Count with a loop.\n")
    (track / "solution.py").write_text(SOURCE)
    (track / "starter.py").write_text("def count_below(values, limit):\n    return None\n")
    (track / "tests.py").write_text(WEAK_TESTS)
    (track / "mutants.toml").write_text(f'[survivors]\n"{STALE}" = "explains nothing now"\n')
    return track


@pytest.mark.sandbox
def test_a_weak_test_lets_a_known_mutant_survive_and_a_strong_one_kills_it(
    tmp_path: Path,
) -> None:
    exercises = tmp_path / "exercises"
    track = make_exercise(exercises)
    assert ids(SOURCE) == [
        "off-by-one@3:13 '0' -> '1'",
        "off-by-one@3:13 '0' -> '-1'",
        "flip-compare@5:12 '<' -> '<='",
        "flip-compare@5:12 '<' -> '>'",
        "swap-sign@6:13 '+=' -> '-='",
        "remove-stmt@6:13 'count += 1' removed",
        "off-by-one@6:22 '1' -> '2'",
        "off-by-one@6:22 '1' -> '0'",
    ]

    # Weak: no value equals the limit, so '<=' survives, unexplained; the rest are killed.
    with Grader(make_settings(tmp_path / "var", exercises, workers=2)) as grader:
        exercise = load_catalog(exercises).get("count-below")
        seen: list[tuple[int, int]] = []
        report = analyse_track(grader, exercise, "numpy", lambda *p: seen.append(p))
    assert report.not_analysed is None
    assert report.mutants == 8 and len(report.killed) == 7
    assert [s.id for s in report.unexplained] == [SURVIVOR] and report.explained == []
    assert "-        if value < limit:\n+        if value <= limit:" in report.unexplained[0].diff
    assert report.killed["flip-compare@5:12 '<' -> '>'"] == ["counts the values below the limit"]
    assert report.stale == [STALE]
    assert seen[0] == (0, 8) and seen[-1] == (8, 8) and len(seen) == 9

    # Strong, through the command: the survivor is killed, so its explanation is not needed;
    # the exit code is validation's (0), whatever the mutants did.
    (track / "tests.py").write_text(WEAK_TESTS + STRONG_TEST)
    (track / "mutants.toml").write_text(f'[survivors]\n"{SURVIVOR}" = "equivalent?"\n')
    env = {
        **os.environ,
        "DRILL_SANDBOX": "bwrap",
        "DRILL_WORKERS": "2",
        "DRILL_VAR_DIR": str(tmp_path / "var2"),
        "DRILL_EXERCISES_DIR": str(exercises),
    }
    done = subprocess.run(
        [sys.executable, "-m", "drill", "validate", "--mutants", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)
    mutants = row["mutants"]
    assert mutants["mutants"] == 8 and mutants["survived"] == 0
    assert mutants["killed"][SURVIVOR] == ["a value equal to the limit is not below it"]
    assert mutants["unneeded"] == [SURVIVOR] and mutants["stale"] == []
    assert "mutants 1/1: count-below [numpy]" in done.stderr
    assert "8/8" in done.stderr
