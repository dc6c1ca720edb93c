"""Exercise packages: loading, validation and content hashing.

A package is a folder ``exercises/<slug>/``::

    exercise.toml        title, section, difficulty, summary, optional order and
                         reveal_solution, [tracks.*], optional [limits]
    statement.md         the statement (names every entry point)
    hints/1.md, 2.md...  hints, revealed in order
    <track>/starter.py   what the learner starts from
    <track>/solution.py  the reference solution
    <track>/tests.py     the test cases (see graders.sandbox.testing)
    <track>/wrong/*.py   known-wrong solutions, each opening with a one-line docstring
                         naming its bug, with a "Breaks: <test id>" line naming the
                         hidden test that must report it first
    <track>/alternatives/*.py  known-correct solutions in other styles than the
                         reference, each opening with a docstring naming its style

Loading rejects a malformed package with :class:`CatalogError` naming the file and field.
"""

from __future__ import annotations

import ast
import hashlib
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from graders.errors import CatalogError, UnknownExercise
from graders.grading import pyparse
from graders.grading.sections import Section, load_sections, ordered_sections, sections_version
from graders.grading.statement import track_blocks

TRACKS = ("numpy", "torch")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Limits(BaseModel):
    """Per-exercise limits; unset fields take the service defaults."""

    model_config = ConfigDict(extra="forbid")

    cpu_seconds: float | None = Field(None, gt=0, le=60)
    wall_seconds: float | None = Field(None, gt=0, le=120)
    memory_mb: int | None = Field(None, ge=64, le=8192)


class StatedTolerance(BaseModel):
    """A tolerance the statement states for values of one dtype."""

    model_config = ConfigDict(extra="forbid")

    rtol: float = Field(ge=0)
    atol: float = Field(ge=0)


class TrackMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entry_points: list[str] = Field(min_length=1)
    # The warm test time of a Submit of the reference above which drill validate warns
    # (by default 10 ms for numpy and 25 ms for torch): slow tests slow every Submit.
    test_budget_ms: float | None = Field(None, gt=0, le=60_000)


class ExerciseMeta(BaseModel):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, max_length=120)
    section: str = Field(min_length=1, max_length=80)
    difficulty: Literal["easy", "medium", "hard"]
    summary: str = Field(min_length=1, max_length=300)
    order: int = 100  # position in the catalog (then title): a course's own sequence
    # Whether a learner who passed a track's Submit may read its solution.py.
    reveal_solution: StrictBool = True  # true or false: not "no", not 0
    tracks: dict[str, TrackMeta] = Field(min_length=1)
    limits: Limits = Limits()
    # The tolerances the statement states, by dtype name ([tolerance] float64 = {rtol = 1e-9,
    # atol = 1e-12}): drill validate fails a test that compares those values more loosely.
    tolerance: dict[Literal["float16", "bfloat16", "float32", "float64"], StatedTolerance] = {}


@dataclass(frozen=True)
class KnownSolution:
    """A solution whose verdict is known: wrong (``about`` names its bug) or a correct
    alternative to the reference (``about`` names its style)."""

    path: Path
    about: str  # the first line of its docstring
    code: str
    # A wrong solution's "Breaks: <test id>" line: the hidden test that must report it
    # first, the rule its bug breaks (drill validate checks that no other test does).
    breaks: str | None = None


@dataclass(frozen=True)
class Track:
    name: str
    entry_points: tuple[str, ...]
    starter: str
    solution: str
    tests: str
    wrong: tuple[KnownSolution, ...]
    folder: Path
    # Hash of exactly what a reference run uses (solution, tests, entry points), taken
    # from the text read here: the package's ``version`` is hashed from the files after
    # they were read, so an edit in between (a live reload) could pair old tests with it.
    fingerprint: str = ""
    alternatives: tuple[KnownSolution, ...] = ()
    # Each entry point's parameter names in the reference, to show a failing call.
    parameters: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Exercise:
    slug: str
    folder: Path
    meta: ExerciseMeta
    statement: str
    hints: tuple[str, ...]
    tracks: dict[str, Track]
    version: str  # hash of every file of the package

    def track(self, name: str) -> Track:
        try:
            return self.tracks[name]
        except KeyError:
            raise UnknownExercise(
                f"exercise {self.slug!r} has no track {name!r} (tracks: {', '.join(self.tracks)})"
            ) from None


@dataclass
class Catalog:
    folder: Path
    exercises: dict[str, Exercise] = field(default_factory=dict)  # in catalog order
    sections: list[Section] = field(default_factory=list)  # in catalog order
    sections_version: str = ""  # a hash of sections.toml, "" without one

    def get(self, slug: str) -> Exercise:
        try:
            return self.exercises[slug]
        except KeyError:
            raise UnknownExercise(f"no exercise {slug!r}") from None

    def __iter__(self) -> Iterator[Exercise]:
        return iter(self.exercises.values())


def load_catalog(folder: Path) -> Catalog:
    """Load every package under ``folder``; raise CatalogError on the first bad one."""
    if not folder.is_dir():
        raise CatalogError(str(folder), "the exercises folder does not exist")
    version = sections_version(folder)
    listed = load_sections(folder)
    loaded = sorted(
        (
            load_exercise(path)
            for path in sorted(folder.iterdir())
            if path.is_dir() and not path.name.startswith((".", "_"))
        ),
        key=lambda e: (e.meta.order, e.meta.title),
    )
    sections = ordered_sections(listed, (e.meta.section for e in loaded), folder)
    # Section by section, so that "Next exercise" after a section's last leads to the next.
    rank = {section.name: i for i, section in enumerate(sections)}
    catalog = Catalog(folder, sections=sections, sections_version=version)
    for exercise in sorted(loaded, key=lambda e: rank[e.meta.section]):  # stable: keeps order
        catalog.exercises[exercise.slug] = exercise
    return catalog


def content_hash(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def load_exercise(folder: Path) -> Exercise:
    slug = folder.name
    if not SLUG.match(slug):
        raise CatalogError(str(folder), "folder name must be a slug like 'my-exercise'")
    meta_path = folder / "exercise.toml"
    meta = _load_meta(meta_path)
    statement = _read(folder / "statement.md")
    hints = _load_hints(folder / "hints")
    tracks = {}
    for name, track_meta in meta.tracks.items():
        if name not in TRACKS:
            raise CatalogError(
                str(meta_path), f"tracks.{name}: unknown track (use {' or '.join(TRACKS)})"
            )
        for entry in track_meta.entry_points:
            if not IDENTIFIER.match(entry):
                raise CatalogError(
                    str(meta_path), f"tracks.{name}.entry_points: {entry!r} is not a name"
                )
        tracks[name] = _load_track(folder / name, name, tuple(track_meta.entry_points))
    track_blocks(statement, str(folder / "statement.md"), tracks)  # its "::: track" markers
    return Exercise(slug, folder, meta, statement, hints, tracks, content_hash(folder))


def _load_meta(path: Path) -> ExerciseMeta:
    try:
        data = tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(str(path), f"not valid TOML: {exc}") from None
    try:
        return ExerciseMeta.model_validate(data)
    except ValidationError as exc:
        # An unknown (often misspelt) field explains a missing one better than the reverse.
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        error = errors[0]
        where = ".".join(str(part) for part in error["loc"]) or "(top level)"
        raise CatalogError(str(path), f"{where}: {error['msg']}") from None


def _load_hints(folder: Path) -> tuple[str, ...]:
    if not folder.is_dir():
        raise CatalogError(str(folder), "missing hints folder (hints/1.md, hints/2.md, ...)")
    files = sorted(folder.glob("*.md"), key=lambda p: (not p.stem.isdigit(), p.stem.zfill(6)))
    hints = []
    for number, path in enumerate(files, start=1):
        if path.stem != str(number):
            raise CatalogError(
                str(path), f"hints must be numbered 1.md, 2.md, ...; expected {number}.md"
            )
        text = _read(path).strip()
        if not text:
            raise CatalogError(str(path), "hint is empty")
        hints.append(text)
    if not hints:
        raise CatalogError(str(folder), "no hints (add hints/1.md)")
    return tuple(hints)


def _load_track(folder: Path, name: str, entry_points: tuple[str, ...]) -> Track:
    if not folder.is_dir():
        raise CatalogError(str(folder), f"tracks.{name} is declared but its folder is missing")
    starter = _python(folder / "starter.py")
    solution = _python(folder / "solution.py")
    tests = _python(folder / "tests.py")
    defined = _top_level_functions(solution)
    missing = [e for e in entry_points if e not in defined]
    if missing:
        raise CatalogError(
            str(folder / "solution.py"), f"entry point {', '.join(missing)} is not defined"
        )
    wrong = _known(
        folder / "wrong", "a known-wrong solution must open with a docstring naming its bug"
    )
    alternatives = _known(
        folder / "alternatives",
        "a known-correct alternative must open with a docstring naming its style",
    )
    fingerprint = hashlib.sha256("\0".join((solution, tests, *entry_points)).encode())
    return Track(
        name,
        entry_points,
        starter,
        solution,
        tests,
        wrong,
        folder,
        fingerprint.hexdigest(),
        alternatives,
        _parameters(solution),
    )


def _parameters(code: str) -> dict[str, tuple[str, ...]]:
    functions = [n for n in pyparse.parse(code).body if isinstance(n, ast.FunctionDef)]
    return {f.name: tuple(a.arg for a in f.args.posonlyargs + f.args.args) for f in functions}


def _known(folder: Path, missing_docstring: str) -> tuple[KnownSolution, ...]:
    """The solutions in ``folder`` (``wrong/`` or ``alternatives/``), sorted by name."""
    known = []
    for path in sorted(folder.glob("*.py")):
        code = _python(path)
        doc = ast.get_docstring(pyparse.parse(code))
        if not doc or not doc.strip():
            raise CatalogError(str(path), missing_docstring)
        breaks = BREAKS.search(doc)
        known.append(
            KnownSolution(
                path, doc.strip().splitlines()[0], code, breaks.group(1).strip() if breaks else None
            )
        )
    return tuple(known)


# In a wrong solution's docstring, the line naming the rule it breaks.
BREAKS = re.compile(r"^\s*Breaks:\s*(\S.*)$", re.MULTILINE)


def _top_level_functions(code: str) -> set[str]:
    return {n.name for n in pyparse.parse(code).body if isinstance(n, ast.FunctionDef)}


def _python(path: Path) -> str:
    code = _read(path)
    try:
        pyparse.parse(code, str(path))
    except SyntaxError as exc:
        raise CatalogError(str(path), f"syntax error at line {exc.lineno}: {exc.msg}") from None
    return code


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError(str(path), "file is missing") from None
    except UnicodeDecodeError:
        raise CatalogError(str(path), "file is not UTF-8") from None
