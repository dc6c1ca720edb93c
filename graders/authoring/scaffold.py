"""``drill new``: a new exercise package that loads and validates, full of placeholders.

Every placeholder carries the marker ``TODO(drill new)``; ``drill validate`` refuses a
package while any file still holds one, so a scaffold cannot be published by accident.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from graders.errors import CatalogError, DrillError
from graders.grading.catalog import SLUG, TRACKS, load_catalog, load_exercise

MARKER = "TODO(drill new)"


class ScaffoldError(DrillError):
    """The package cannot be created (bad slug or track, folder already there)."""


@dataclass(frozen=True)
class Scaffold:
    folder: Path
    files: list[Path]
    entry_point: str


def _title(slug: str) -> str:
    return slug.replace("-", " ").capitalize()


def _files(slug: str, tracks: list[str], order: int) -> dict[str, str]:
    name = slug.replace("-", "_")
    toml = [
        f"# Written by `drill new`. Replace every {MARKER}, then run `drill validate {slug}`.",
        f'title = "{_title(slug)}"',
        f'section = "{MARKER}: the catalog section"',
        'difficulty = "medium"  # easy, medium or hard',
        f"order = {order}  # position in the catalog",
        f'summary = "{MARKER}: one sentence for the catalog."',
    ]
    for track in tracks:
        toml += ["", f"[tracks.{track}]", f'entry_points = ["{name}"]']
    files = {
        "exercise.toml": "\n".join(toml) + "\n",
        "statement.md": (
            f"# {_title(slug)}\n\n"
            f"{MARKER}: what the learner writes, in your own words. Name every entry point "
            f"(here `{name}(x)`), give the conventions, a worked example, and the rules the "
            "hidden tests check: a hidden test may check only what this statement states.\n"
        ),
        "hints/1.md": f"{MARKER}: a first hint, a nudge rather than the answer.\n",
    }
    for track in tracks:
        lib, make = ("numpy as np", "np.array") if track == "numpy" else ("torch", "torch.tensor")
        files[f"{track}/starter.py"] = (
            f"import {lib}\n\n\n"
            f"def {name}(x):\n"
            f'    """{MARKER}: the docstring learners start from."""\n'
            f'    raise NotImplementedError("write {name}")\n'
        )
        files[f"{track}/solution.py"] = (
            f"import {lib}\n\n\n"
            f"def {name}(x):\n"
            f"    # {MARKER}: the reference solution. This placeholder doubles its input,\n"
            "    # so that the package validates end to end before you start.\n"
            "    return x * 2\n"
        )
        files[f"{track}/tests.py"] = (
            f'"""Tests for the {track} track of {slug} (see docs/authoring.md).\n\n'
            f"{MARKER}: one test per rule of the statement; each returns a dict of named\n"
            'observations that the server compares with the reference solution\'s."""\n\n'
            f"import {lib}\n\n"
            "from graders.sandbox.testing import example, test\n\n\n"
            '@example("the worked example", hint=1)\n'
            "def worked_example(t):\n"
            f'    return {{"output": t.call("{name}", {make}([1.0, 2.0, 3.0]))}}\n\n\n'
            '@test("a two-row input", hint=1, reveal="summary")\n'
            "def two_rows(t):\n"
            f"    x = {make}([[0.5, -1.0], [2.0, 0.0]])\n"
            f'    return {{"output": t.call("{name}", x)}}\n'
        )
        files[f"{track}/wrong/returns_its_input.py"] = (
            f'"""Returns its input unchanged ({MARKER}: a mistake learners really make).\n\n'
            "Breaks: two_rows\n"
            '"""\n\n\n'
            f"def {name}(x):\n"
            "    return x\n"
        )
    return files


def create(exercises: Path, slug: str, tracks: list[str]) -> Scaffold:
    """Write the package ``exercises/<slug>``; nothing is written if anything is wrong."""
    if not SLUG.match(slug):
        raise ScaffoldError(
            f"{slug!r} is not a slug: use lowercase letters, digits and single hyphens, "
            "like 'row-softmax'"
        )
    unknown = [t for t in tracks if t not in TRACKS]
    if unknown or not tracks:
        raise ScaffoldError(
            f"unknown track {', '.join(unknown) or '(none given)'}: use {' and/or '.join(TRACKS)}"
        )
    folder = exercises / slug
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists; nothing was written")
    try:
        existing = load_catalog(exercises) if exercises.is_dir() else None
        order = max((e.meta.order for e in existing or []), default=0) + 1
    except CatalogError:
        order = 100  # another package is broken; that is validate's business, not ours
    written = []
    try:
        for relative, text in _files(slug, list(dict.fromkeys(tracks)), order).items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
        load_exercise(folder)  # the scaffold must load; a failure here is our bug
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Scaffold(folder, written, slug.replace("-", "_"))


def placeholders(folder: Path) -> list[str]:
    """Files of a package that still hold a ``drill new`` placeholder."""
    return sorted(
        str(path.relative_to(folder.parent))
        for path in folder.rglob("*")
        if path.is_file()
        and path.suffix in (".toml", ".md", ".py")
        and MARKER in path.read_text(encoding="utf-8", errors="replace")
    )
