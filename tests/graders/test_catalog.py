"""Exercise packages: the shipped catalog, content hashing and malformed packages."""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

import pytest

from graders.errors import CatalogError, UnknownExercise
from graders.grading.catalog import content_hash, load_catalog, load_exercise
from tests.catalog import (
    BASICS_SECTION,
    BASICS_SECTION_NAME,
    FLOORED,
    MEMORY_SECTION,
    MEMORY_SECTION_NAME,
    SEED_CONTRACT,
    only,
    shipped_exercises_dir,
    shipped_slugs,
    shipped_tracks,
)

SEED = shipped_exercises_dir()
DOUBLE = Path(__file__).parent / "exercises" / "double"


@pytest.fixture(scope="module")
def seed():
    return load_catalog(SEED)


@pytest.fixture
def exercises(tmp_path: Path) -> Path:
    """An exercises folder holding a fresh copy of the ``double`` test package."""
    folder = tmp_path / "exercises"
    shutil.copytree(DOUBLE, folder / "double", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


# --- the shipped catalog: its contracts, and what holds for any exercise in it ---------


@pytest.mark.catalog
def test_the_seed_exercises_keep_their_tracks_and_entry_points(seed):
    for slug, tracks in SEED_CONTRACT.items():
        exercise = seed.get(slug)
        assert {name: t.entry_points for name, t in exercise.tracks.items()} == tracks


@pytest.mark.catalog
def test_the_memory_section_keeps_its_order(seed):
    # Issue 13's order, relative: new exercises may come anywhere, in any section.
    assert only([e.slug for e in seed]) == list(MEMORY_SECTION)
    assert {seed.get(slug).meta.section for slug in MEMORY_SECTION} == {MEMORY_SECTION_NAME}


@pytest.mark.catalog
def test_the_tensors_section_comes_first_in_its_order(seed):
    # Issue 29: the beginners' section leads the catalog, so "Next exercise" from its last
    # exercise leads into the memory section.
    slugs = [e.slug for e in seed]
    assert seed.sections[0].name == BASICS_SECTION_NAME
    assert only(slugs, BASICS_SECTION) == list(BASICS_SECTION)
    assert {seed.get(slug).meta.section for slug in BASICS_SECTION} == {BASICS_SECTION_NAME}
    assert max(map(slugs.index, BASICS_SECTION)) < min(map(slugs.index, MEMORY_SECTION))


@pytest.mark.catalog
def test_the_catalog_is_every_package_of_the_folder(seed):
    assert sorted(seed.exercises) == shipped_slugs()


@pytest.mark.catalog
@pytest.mark.parametrize("slug", shipped_slugs())
def test_shipped_exercise(seed, slug):
    exercise = seed.get(slug)
    assert exercise.folder == SEED / slug
    assert exercise.meta.title and exercise.meta.summary
    assert exercise.statement.strip()
    if slug in FLOORED:  # the shipped sections' own floor; an instructor's may differ
        assert len(exercise.hints) >= 3
    assert all(h.strip() for h in exercise.hints)
    assert exercise.version == content_hash(SEED / slug)
    for name, track in exercise.tracks.items():
        assert exercise.track(name) is track
        assert track.folder == SEED / slug / name
        for entry in track.entry_points:
            assert entry in exercise.statement
            assert f"def {entry}(" in track.solution


@pytest.mark.catalog
@pytest.mark.parametrize(
    ("slug", "track"), shipped_tracks(), ids=[f"{s}-{t}" for s, t in shipped_tracks()]
)
def test_shipped_wrong_solutions(seed, slug, track):
    wrong = seed.get(slug).track(track).wrong
    files = sorted((SEED / slug / track / "wrong").glob("*.py"))
    if slug in FLOORED:
        assert len(wrong) >= 5
    assert [w.path for w in wrong] == files
    for solution in wrong:
        assert solution.code == solution.path.read_text()
        docstring = ast.get_docstring(ast.parse(solution.code))
        assert docstring
        assert solution.about == docstring.strip().splitlines()[0]
        assert solution.about.strip()


@pytest.mark.catalog
def test_get_unknown_slug(seed):
    with pytest.raises(UnknownExercise, match="no exercise 'no-such-exercise'"):
        seed.get("no-such-exercise")


@pytest.mark.catalog
def test_unknown_track(seed):
    with pytest.raises(UnknownExercise, match="has no track 'numpy'"):
        seed.get("checkpointing-layer-stack").track("numpy")


def test_exercises_folder_missing(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(CatalogError) as info:
        load_catalog(missing)
    assert info.value.path == str(missing)
    assert "does not exist" in str(info.value)


def test_skips_hidden_and_private_folders_and_files(exercises):
    (exercises / ".git").mkdir()
    (exercises / "_drafts").mkdir()
    (exercises / "_drafts" / "exercise.toml").write_text("not toml at all [")
    (exercises / "README.md").write_text("the exercises")
    assert list(load_catalog(exercises).exercises) == ["double"]


def test_the_copy_of_double_loads(exercises):
    exercise = load_catalog(exercises).get("double")
    assert exercise.tracks["numpy"].entry_points == ("double",)
    assert exercise.hints == ("Multiply by two.",)
    assert [w.about for w in exercise.tracks["numpy"].wrong] == ["Adds two instead of doubling."]
    assert exercise.meta.limits.memory_mb == 512
    assert exercise.meta.reveal_solution is True  # the default


def test_an_author_can_turn_the_solution_reveal_off(exercises):
    toml = exercises / "double" / "exercise.toml"
    toml.write_text("reveal_solution = false\n" + toml.read_text())
    assert load_catalog(exercises).get("double").meta.reveal_solution is False


# --- content hash -------------------------------------------------------------------

DOUBLE_FILES = sorted(
    p.relative_to(DOUBLE).as_posix()
    for p in DOUBLE.rglob("*")
    if p.is_file() and "__pycache__" not in p.parts
)


def test_hash_depends_on_content_not_location(exercises, tmp_path):
    other = tmp_path / "elsewhere" / "double"
    shutil.copytree(exercises / "double", other)
    assert content_hash(other) == content_hash(exercises / "double")
    assert load_exercise(other).version == content_hash(other)


@pytest.mark.parametrize("name", DOUBLE_FILES)
def test_hash_changes_when_a_file_changes(exercises, name):
    package = exercises / "double"
    before = content_hash(package)
    path = package / name
    original = path.read_bytes()
    path.write_bytes(original + b"\n")
    assert content_hash(package) != before
    path.write_bytes(original)
    assert content_hash(package) == before


def test_hash_ignores_timestamps_pycache_and_empty_folders(exercises):
    package = exercises / "double"
    before = content_hash(package)
    os.utime(package / "numpy" / "solution.py", (1, 1))
    (package / "numpy" / "__pycache__").mkdir()
    (package / "numpy" / "__pycache__" / "solution.cpython-311.pyc").write_bytes(b"\x00")
    (package / "empty").mkdir()
    assert content_hash(package) == before


@pytest.mark.parametrize(
    "change",
    ["add-file", "rename-file", "move-content"],
)
def test_hash_changes_with_the_file_set(exercises, change):
    package = exercises / "double"
    before = content_hash(package)
    if change == "add-file":
        (package / "hints" / "2.md").write_text("Use `*`.")
    elif change == "rename-file":
        (package / "numpy" / "wrong" / "add.py").rename(package / "numpy" / "wrong" / "plus.py")
    else:  # the same bytes, split differently between two files
        (package / "hints" / "1.md").write_text("Multiply by")
        (package / "statement.md").write_text((package / "statement.md").read_text() + " two.")
    assert content_hash(package) != before


# --- malformed packages -------------------------------------------------------------


def edit(rel: str, old: str, new: str):
    def apply(package: Path) -> Path:
        path = package / rel
        text = path.read_text()
        assert old in text, f"{old!r} not in {rel}"
        path.write_text(text.replace(old, new, 1))
        return package

    return apply


def write(rel: str, data: str | bytes):
    def apply(package: Path) -> Path:
        path = package / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)
        return package

    return apply


def remove(rel: str):
    def apply(package: Path) -> Path:
        path = package / rel
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
        return package

    return apply


def rename_package(name: str):
    def apply(package: Path) -> Path:
        return package.rename(package.with_name(name))

    return apply


MALFORMED = [
    # (id, break the package, the file at fault relative to the package, the problem)
    ("invalid-toml", write("exercise.toml", 'title = "Double\n'), "exercise.toml",
     "not valid TOML"),
    ("missing-title", edit("exercise.toml", 'title = "Double"\n', ""), "exercise.toml",
     "title: Field required"),
    ("empty-title", edit("exercise.toml", 'title = "Double"', 'title = ""'), "exercise.toml",
     "title: String should have at least 1 character"),
    ("difficulty-impossible", edit("exercise.toml", '"easy"', '"impossible"'), "exercise.toml",
     "difficulty: Input should be 'easy', 'medium' or 'hard'"),
    ("unknown-field", edit("exercise.toml", 'title =', 'author = "me"\ntitle ='),
     "exercise.toml", "author: Extra inputs are not permitted"),
    ("unknown-track-field", edit("exercise.toml", "entry_points", "timeout = 3\nentry_points"),
     "exercise.toml", "tracks.numpy.timeout: Extra inputs are not permitted"),
    ("no-entry-points", edit("exercise.toml", '["double"]', "[]"), "exercise.toml",
     "tracks.numpy.entry_points: List should have at least 1 item"),
    ("entry-point-not-a-name", edit("exercise.toml", '["double"]', '["double-it"]'),
     "exercise.toml", "tracks.numpy.entry_points: 'double-it' is not a name"),
    ("reveal-not-a-boolean", edit("exercise.toml", "title =", 'reveal_solution = "no"\ntitle ='),
     "exercise.toml", "reveal_solution: Input should be a valid boolean"),
    ("reveal-a-number", edit("exercise.toml", "title =", "reveal_solution = 0\ntitle ="),
     "exercise.toml", "reveal_solution: Input should be a valid boolean"),
    ("reveal-misspelt", edit("exercise.toml", "title =", "reveal_solutions = false\ntitle ="),
     "exercise.toml", "reveal_solutions: Extra inputs are not permitted"),
    ("limit-out-of-range", edit("exercise.toml", "memory_mb = 512", "memory_mb = 8"),
     "exercise.toml", "limits.memory_mb: Input should be greater than or equal to 64"),
    ("unknown-track", edit("exercise.toml", "[tracks.numpy]", "[tracks.jax]"), "exercise.toml",
     "tracks.jax: unknown track"),
    ("exercise-toml-missing", remove("exercise.toml"), "exercise.toml", "file is missing"),
    ("track-folder-missing", remove("numpy"), "numpy",
     "tracks.numpy is declared but its folder is missing"),
    ("declared-track-folder-missing",
     edit("exercise.toml", "[limits]", '[tracks.torch]\nentry_points = ["double"]\n\n[limits]'),
     "torch", "tracks.torch is declared but its folder is missing"),
    ("solution-missing", remove("numpy/solution.py"), "numpy/solution.py", "file is missing"),
    ("starter-missing", remove("numpy/starter.py"), "numpy/starter.py", "file is missing"),
    ("tests-missing", remove("numpy/tests.py"), "numpy/tests.py", "file is missing"),
    ("entry-point-not-defined", edit("numpy/solution.py", "def double(", "def triple("),
     "numpy/solution.py", "entry point double is not defined"),
    ("entry-point-only-nested", write("numpy/solution.py", "class A:\n    def double(x): ...\n"),
     "numpy/solution.py", "entry point double is not defined"),
    ("syntax-error-in-tests", edit("numpy/tests.py", "def short(t):", "def short(t)"),
     "numpy/tests.py", "syntax error at line 9"),
    ("syntax-error-in-solution", write("numpy/solution.py", "def double(x:\n"),
     "numpy/solution.py", "syntax error at line 1"),
    ("syntax-error-in-wrong", write("numpy/wrong/broken.py", '"""Broken."""\nreturn = 1\n'),
     "numpy/wrong/broken.py", "syntax error at line 2"),
    ("wrong-without-docstring", write("numpy/wrong/bare.py", "def double(x):\n    return x\n"),
     "numpy/wrong/bare.py", "must open with a docstring naming its bug"),
    ("wrong-with-blank-docstring", write("numpy/wrong/blank.py", '"""   """\n'),
     "numpy/wrong/blank.py", "must open with a docstring naming its bug"),
    ("hints-1-and-3", write("hints/3.md", "Third."), "hints/3.md", "expected 2.md"),
    ("hint-not-numbered", write("hints/extra.md", "More."), "hints/extra.md", "expected 2.md"),
    ("no-hints-folder", remove("hints"), "hints", "missing hints folder"),
    ("empty-hints-folder", remove("hints/1.md"), "hints", "no hints"),
    ("empty-hint", write("hints/1.md", "  \n"), "hints/1.md", "hint is empty"),
    ("statement-missing", remove("statement.md"), "statement.md", "file is missing"),
    ("folder-not-a-slug", rename_package("Double_It"), "", "folder name must be a slug"),
    ("folder-trailing-dash", rename_package("double-"), "", "folder name must be a slug"),
    ("non-utf8-statement", write("statement.md", b"# Double\n\xff\xfe\n"), "statement.md",
     "file is not UTF-8"),
    ("non-utf8-toml", write("exercise.toml", b'title = "\xe9"\n'), "exercise.toml",
     "file is not UTF-8"),
    ("non-utf8-hint", write("hints/1.md", b"\x80"), "hints/1.md", "file is not UTF-8"),
    ("non-utf8-solution", write("numpy/solution.py", b"# \xff\ndef double(x): ...\n"),
     "numpy/solution.py", "file is not UTF-8"),
    ("non-utf8-wrong", write("numpy/wrong/add.py", b'"""\xff"""\n'), "numpy/wrong/add.py",
     "file is not UTF-8"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("breaks", "fault", "problem"),
    [case[1:] for case in MALFORMED],
    ids=[case[0] for case in MALFORMED],
)
def test_malformed_package(exercises, breaks, fault, problem):
    package = breaks(exercises / "double")
    at_fault = str(package / fault) if fault else str(package)
    with pytest.raises(CatalogError) as info:
        load_catalog(exercises)
    assert info.value.path == at_fault
    assert problem in info.value.problem
    assert str(info.value).startswith(f"{at_fault}: ")
    assert problem in str(info.value)


# --- sections.toml: the sections' order and lines ---------------------------------------


def _add_package(exercises: Path, slug: str, section: str, order: int) -> None:
    """A copy of ``double`` named ``slug``, in ``section`` at ``order``."""
    shutil.copytree(exercises / "double", exercises / slug)
    toml = exercises / slug / "exercise.toml"
    text = toml.read_text().replace('section = "Basics"', f'section = "{section}"')
    text = text.replace('title = "Double"', f'title = "{slug}"\norder = {order}')
    toml.write_text(text)


def test_without_sections_toml_sections_follow_their_first_exercise(exercises: Path) -> None:
    _add_package(exercises, "early", "Later", 1)  # order 1: before double's default 100
    catalog = load_catalog(exercises)
    assert [s.name for s in catalog.sections] == ["Later", "Basics"]
    assert [e.slug for e in catalog] == ["early", "double"]
    assert catalog.sections_version == ""


def test_sections_toml_orders_sections_and_the_exercises_with_them(exercises: Path) -> None:
    _add_package(exercises, "early", "Later", 1)
    _add_package(exercises, "unlisted", "Elsewhere", 0)  # first by order, but not listed
    (exercises / "sections.toml").write_text(
        '[[sections]]\nname = "Basics"\nsummary = "Start here."\n\n[[sections]]\nname = "Later"\n'
    )
    catalog = load_catalog(exercises)
    assert [(s.name, s.summary) for s in catalog.sections] == [
        ("Basics", "Start here."),
        ("Later", ""),
        ("Elsewhere", ""),  # not listed: after the listed ones
    ]
    # Section by section: double (order 100) comes before early (order 1).
    assert [e.slug for e in catalog] == ["double", "early", "unlisted"]
    assert len(catalog.sections_version) == 16


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[sections]]\nname = "Basic"\n', "no exercise is in section 'Basic'"),
        ('[[sections]]\nname = "Basics"\n[[sections]]\nname = "Basics"\n', "listed twice"),
        ('[[sections]]\nname = "Basics"\nlevel = "easy"\n', "sections.0.level"),
        ('[[sections]]\nsummary = "x"\n', "sections.0.name: Field required"),
        ("[[sections]\n", "not valid TOML"),
    ],
)
def test_a_bad_sections_toml_names_the_file_and_the_problem(
    exercises: Path, text: str, message: str
) -> None:
    (exercises / "sections.toml").write_text(text)
    with pytest.raises(CatalogError) as caught:
        load_catalog(exercises)
    assert "sections.toml" in str(caught.value) and message in str(caught.value)
