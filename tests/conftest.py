"""Shared fixtures: real graders on the shipped exercises and on the test exercises.

Sandbox tests run with ``DRILL_SANDBOX=bwrap`` semantics: they fail, never skip, when
bubblewrap cannot run, because a sandbox test that skips has not tested anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.settings import AppSettings
from graders.grading.grader import Grader
from tests.catalog import shipped_exercises_dir

TEST_EXERCISES = Path(__file__).parent / "graders" / "exercises"


def make_settings(tmp: Path, exercises: Path, **overrides: object) -> AppSettings:
    """Settings for a grader or an app under test (the app's are a superset)."""
    values: dict[str, object] = {
        "exercises_dir": exercises,
        "var_dir": tmp,
        "sandbox": "bwrap",
        "workers": 2,
    }
    values.update(overrides)
    return AppSettings(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def seed_grader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grader]:
    """A started grader on the shipped exercises (tests/catalog.py), in bubblewrap."""
    settings = make_settings(tmp_path_factory.mktemp("seed-var"), shipped_exercises_dir())
    with Grader(settings) as grader:
        yield grader


@pytest.fixture(scope="session")
def test_grader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Grader]:
    """A started grader on the small exercises made for the grader's own tests."""
    settings = make_settings(tmp_path_factory.mktemp("test-var"), TEST_EXERCISES)
    with Grader(settings) as grader:
        yield grader
