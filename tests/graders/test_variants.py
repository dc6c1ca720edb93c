"""Per-learner draws (``@test(..., per_learner=True)``): each learner's inputs come from
their own seed, the reference runs on the same draws in its own sandbox, and its
observations are cached per seed. Run on real bubblewrap workers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from graders.authoring.validate import validate
from graders.grading.backend import learner_variant
from graders.grading.grader import Grader
from graders.grading.results import Status
from tests.conftest import make_settings

pytestmark = pytest.mark.sandbox

TESTS = """
import numpy as np

from graders.sandbox.testing import example, test


@example("doubles an example")
def example(t):
    return {"result": t.call("double", np.arange(3.0))}


@test("doubles a vector drawn for you", per_learner=True)
def drawn(t):
    x = np.random.rand(4)
    return {"input": x, "result": t.call("double", x)}


@test("doubles a vector everyone shares")
def shared(t):
    x = np.random.rand(4)
    return {"input": x, "result": t.call("double", x)}
"""


@pytest.fixture(scope="module")
def grader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grader]:
    root = tmp_path_factory.mktemp("variants")
    make_exercise(root)
    with Grader(make_settings(root / "var", root / "exercises")) as started:
        yield started


def make_exercise(root: Path, alternatives: dict[str, str] | None = None) -> None:
    folder = root / "exercises" / "draws"
    (folder / "numpy").mkdir(parents=True)
    (folder / "hints").mkdir()
    (folder / "exercise.toml").write_text(
        'title = "Draws"\nsection = "Tests"\ndifficulty = "easy"\nsummary = "Double."\n'
        '[tracks.numpy]\nentry_points = ["double"]\n'
    )
    (folder / "statement.md").write_text("Write `double(x)`: twice `x`.\n")
    (folder / "hints" / "1.md").write_text("Multiply by two.\n")
    (folder / "numpy" / "solution.py").write_text("def double(x):\n    return x * 2\n")
    (folder / "numpy" / "starter.py").write_text("def double(x):\n    pass\n")
    (folder / "numpy" / "tests.py").write_text(TESTS)
    for name, code in (alternatives or {}).items():
        (folder / "numpy" / "alternatives").mkdir(exist_ok=True)
        (folder / "numpy" / "alternatives" / name).write_text(code)


def test_each_learner_gets_their_own_draws_and_the_reference_follows(grader: Grader) -> None:
    exercise = grader.catalog.get("draws")
    a, b = learner_variant("a", exercise), learner_variant("b", exercise)
    assert a != b and learner_variant("a", exercise) == a  # stable for a learner
    everyone = grader.reference(exercise, "numpy")
    for_a = grader.reference(exercise, "numpy", a)
    for_b = grader.reference(exercise, "numpy", b)
    drawn = [r.observations["drawn"]["input"].values for r in (everyone, for_a, for_b)]
    assert not np.array_equal(drawn[0], drawn[1]) and not np.array_equal(drawn[1], drawn[2])
    # A test that does not draw per learner has everyone's inputs in every variant.
    for ref in (for_a, for_b):
        assert np.array_equal(
            ref.observations["shared"]["input"].values,
            everyone.observations["shared"]["input"].values,
        )
    # The reference solution passes for every learner.
    solution = exercise.track("numpy").solution
    for learner in ("a", "b", None):
        result = grader.grade(
            grader.catalog.get("draws"), "numpy", solution, "submit", learner=learner
        )
        assert result.status == Status.PASS, result


def test_an_answer_copied_from_another_learner_fails_their_own_draws(grader: Grader) -> None:
    exercise = grader.catalog.get("draws")
    a = grader.reference(exercise, "numpy", learner_variant("a", exercise))
    expected = a.observations["drawn"]["result"].values.tolist()
    # Hard-codes learner a's answer for the drawn test and doubles anything else.
    copied = (
        "import numpy as np\n\n"
        f"def double(x):\n    return np.array({expected!r}) if x.size == 4 else x * 2\n"
    )
    mine = grader.grade(grader.catalog.get("draws"), "numpy", copied, "submit", learner="a")
    theirs = grader.grade(grader.catalog.get("draws"), "numpy", copied, "submit", learner="b")
    by_id = {t.id: t.status for t in theirs.tests}
    assert [t.status for t in mine.tests if t.id == "drawn"] == [Status.PASS]
    assert by_id["drawn"] == Status.FAIL


def test_each_learners_reference_is_cached_with_its_own_draws_only(grader: Grader) -> None:
    exercise = grader.catalog.get("draws")
    store = grader.local.references
    assert store is not None
    variant = learner_variant("cached", exercise)
    grader.reference(exercise, "numpy", variant)
    cached = json.loads(
        (Path(store.cache.folder) / f"{store.key(exercise, 'numpy', variant)}.json").read_text()
    )  # type: ignore[attr-defined]
    assert set(cached["results"]) == {"drawn"}
    # A second ask is served from memory; a fresh store loads it from the cache.
    assert grader.reference(exercise, "numpy", variant) is grader.reference(
        exercise, "numpy", variant
    )
    store._variants.clear()
    again = grader.reference(exercise, "numpy", variant)
    assert set(again.observations) == {"example", "drawn", "shared"}


def test_validate_tries_other_learners_draws(tmp_path: Path, grader: Grader) -> None:
    # An "alternative" that only knows everyone's draws: right for the shared seed,
    # wrong for any learner's own. Validate must see it on the sampled learners' draws.
    exercise = grader.catalog.get("draws")
    everyone = grader.reference(exercise, "numpy").observations
    known = everyone["drawn"]["result"].values.tolist()
    shared = everyone["shared"]["input"].values.tolist()
    copied = (
        '"""Hard-codes the shared draw."""\nimport numpy as np\n\n'
        "def double(x):\n"
        f"    if x.size != 4 or np.allclose(x, {shared!r}):\n"
        "        return x * 2\n"
        f"    return np.array({known!r})\n"
    )
    make_exercise(tmp_path, {"copied.py": copied})
    with Grader(make_settings(tmp_path / "var", tmp_path / "exercises")) as other:
        (report,) = validate(other, ["draws"])
    problems = [p for p in report.problems if "alternatives/copied.py" in p]
    assert problems and all("per-learner draws of 'validate: learner" in p for p in problems)
    assert "doubles a vector drawn for you" in problems[0]
