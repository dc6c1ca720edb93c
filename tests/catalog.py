"""The shipped catalog as the project's tests see it: data that instructors change.

Tests that read the shipped exercises find them through :func:`shipped_exercises_dir`
(``DRILL_EXERCISES_DIR`` when set, else the repository's ``exercises/``) and are marked
``catalog``. They read counts, names and positions from the catalog or from the service,
never from a number written here, so that adding a hidden test or an exercise does not
break ``make test`` (tests/test_catalog_is_data.py proves it on a copy of the catalog).

What they may pin is what DESIGN.md and issue 13 make contracts: the seed exercises'
slugs, tracks and entry points, and the memory section's relative order.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from graders.grading.catalog import Catalog, load_catalog
from graders.settings import ROOT

# DESIGN.md "Contracts": the seed exercises, their tracks and each track's entry points.
SEED_CONTRACT: dict[str, dict[str, tuple[str, ...]]] = {
    "gradient-checkpointing": {
        "numpy": ("checkpoint_forward", "checkpoint_recompute"),
        "torch": ("checkpoint_forward", "checkpoint_recompute"),
    },
    "checkpointing-layer-stack": {"torch": ("forward_with_checkpointing",)},
}

# Issue 13: the memory section's exercises, in this relative order. Other exercises may
# come before, after or between them.
MEMORY_SECTION_NAME = "Memory and autograd"
MEMORY_SECTION = (
    "activation-memory",
    "gradient-checkpointing",
    "checkpointing-layer-stack",
    "checkpoint-placement",
    "checkpoint-budget",
    "checkpoint-function",
    "selective-recompute",
)


# Issue 29: the first section, for people learning NumPy and PyTorch, in this order, before
# the memory section. Its exercises keep the memory section's floors (three hints, two
# examples, six hidden tests, five known mistakes and eight alternatives per track).
BASICS_SECTION_NAME = "Tensors and autograd"
BASICS_SECTION = (
    "pairwise-distances",
    "stable-softmax",
    "cross-entropy",
    "causal-attention",
    "gradient-check",
    "custom-autograd-function",
    "training-step",
)
# The exercises held to those floors (an instructor's own may set theirs lower).
FLOORED = MEMORY_SECTION + BASICS_SECTION


def shipped_exercises_dir() -> Path:
    """The folder of the catalog under test: ``DRILL_EXERCISES_DIR`` or ``exercises/``."""
    configured = os.environ.get("DRILL_EXERCISES_DIR")
    return Path(configured).resolve() if configured else ROOT / "exercises"


def shipped_catalog() -> Catalog:
    return load_catalog(shipped_exercises_dir())


def only(slugs: list[str], wanted: tuple[str, ...] = MEMORY_SECTION) -> list[str]:
    """``slugs`` without the ones outside ``wanted``, order kept: compare it with
    ``list(wanted)`` to check a relative order that tolerates new exercises anywhere."""
    return [slug for slug in slugs if slug in wanted]


def shipped_tracks() -> list[tuple[str, str]]:
    """Every (slug, track) of the shipped catalog, read from the ``exercise.toml`` files
    (cheap enough for ``parametrize``; a broken package fails the tests, not collection)."""
    found = []
    for toml in sorted(shipped_exercises_dir().glob("*/exercise.toml")):
        if toml.parent.name.startswith((".", "_")):
            continue
        try:
            tracks = tomllib.loads(toml.read_text()).get("tracks", {})
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            tracks = {}
        found += [(toml.parent.name, track) for track in sorted(tracks)]
    return found


def shipped_slugs() -> list[str]:
    """Every package folder of the shipped catalog (what ``load_catalog`` would load)."""
    return sorted(
        path.name
        for path in shipped_exercises_dir().iterdir()
        if path.is_dir() and not path.name.startswith((".", "_"))
    )


def declared_counts(slug: str, track: str) -> tuple[int, int]:
    """(examples, hidden tests) that a track's ``tests.py`` declares, read by its syntax
    tree as the fake backend does: the numbers a real grader must report."""
    from tests.fakes import declared_tests  # it imports the graders; only when needed

    declared = declared_tests((shipped_exercises_dir() / slug / track / "tests.py").read_text())
    examples = sum(t.example for t in declared)
    return examples, len(declared) - examples
