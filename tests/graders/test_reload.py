"""Live reload of the exercises: instructors' edits are served without a restart, a broken
edit keeps the last good catalog serving, and ``drill serve --reload`` does it end to end."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from drill.cli import _parser, serve_settings
from graders.errors import ReferenceFailure
from graders.grading.grader import Grader
from graders.grading.reload import CatalogWatcher, snapshot
from tests.conftest import TEST_EXERCISES, make_settings
from tests.serving import Server, children, running_server

pytestmark = pytest.mark.sandbox

GOOD = "def double(x):\n    return x * 2\n"
# Right on every shipped test; wrong on arrays of 100 elements or more.
WRONG_ON_LONG = "def double(x):\n    return x * 2 if x.size < 100 else x\n"
NEW_TEST = """

@test("doubles a long vector")
def long_vector(t):
    return {"result": t.call("double", np.arange(1000.0))}
"""


@pytest.fixture
def exercises(tmp_path: Path) -> Path:
    folder = tmp_path / "exercises"
    shutil.copytree(TEST_EXERCISES / "double", folder / "double")
    return folder


@pytest.fixture
def grader(tmp_path: Path, exercises: Path) -> Iterator[Grader]:
    with Grader(make_settings(tmp_path / "var", exercises, workers=1)) as started:
        yield started


def _tests_py(exercises: Path) -> Path:
    return exercises / "double" / "numpy" / "tests.py"


def _add_test(exercises: Path) -> None:
    tests = _tests_py(exercises)
    tests.write_text(tests.read_text() + NEW_TEST)


def _names(grader: Grader, code: str) -> dict[str, str]:
    result = grader.grade(grader.catalog.get("double"), "numpy", code, "submit")
    return {t.name: t.status for t in result.tests}


def _wait_for(condition: Callable[[], bool], within: float, what: str) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within} s waiting for {what}")
        time.sleep(0.1)


def test_a_new_test_case_is_graded_after_a_reload(grader: Grader, exercises: Path) -> None:
    before = grader.catalog.get("double")
    assert _names(grader, WRONG_ON_LONG) == {"doubles a matrix": "pass", "doubles integers": "pass"}

    _add_test(exercises)
    assert grader.reload_catalog()
    assert grader.catalog_problem is None
    after = grader.catalog.get("double")
    assert after.version != before.version
    assert grader.reference(after, "numpy").key != grader.reference(before, "numpy").key

    assert _names(grader, WRONG_ON_LONG) == {
        "doubles a matrix": "pass",
        "doubles integers": "pass",
        "doubles a long vector": "fail",
    }
    assert set(_names(grader, GOOD).values()) == {"pass"}
    # A request that looked the exercise up before the reload finishes on that version.
    old = grader.grade(before, "numpy", WRONG_ON_LONG, "submit")
    assert old.status == "pass" and old.total == 2


def test_the_reference_is_keyed_by_the_content_it_ran(grader: Grader, exercises: Path) -> None:
    # An edit landing between reading tests.py and hashing the folder gives an exercise
    # whose version says "new" while its tests are old: the key must still tell them apart.
    exercise = grader.catalog.get("double")
    _add_test(exercises)
    assert grader.reload_catalog()
    edited = grader.catalog.get("double")
    torn = type(exercise)(**{**exercise.__dict__, "version": edited.version})
    assert grader.reference(torn, "numpy").names(example=False) == [
        "doubles a matrix",
        "doubles integers",
    ]
    assert "doubles a long vector" in grader.reference(edited, "numpy").names(example=False)


def test_a_broken_edit_keeps_the_last_good_catalog(grader: Grader, exercises: Path) -> None:
    serving = grader.catalog
    toml = exercises / "double" / "exercise.toml"
    good = toml.read_text()
    toml.write_text(good.replace('title = "Double"', 'title = "Double'))

    assert not grader.reload_catalog()
    assert grader.catalog is serving
    assert grader.catalog_problem is not None
    assert "exercise.toml" in grader.catalog_problem
    assert "not valid TOML" in grader.catalog_problem
    assert grader.grade(grader.catalog.get("double"), "numpy", GOOD, "submit").status == "pass"

    toml.write_text(good.replace('"Double"', '"Double it"'))
    assert grader.reload_catalog()
    assert grader.catalog_problem is None
    assert grader.catalog.get("double").meta.title == "Double it"


def test_a_tests_py_that_does_not_compile_is_refused(grader: Grader, exercises: Path) -> None:
    serving = grader.catalog
    tests = _tests_py(exercises)
    tests.write_text(tests.read_text() + "\n@test(\n")
    assert not grader.reload_catalog()
    assert grader.catalog is serving
    assert grader.catalog_problem is not None and "tests.py" in grader.catalog_problem


def test_a_failing_reference_is_reported(grader: Grader, exercises: Path) -> None:
    tests = _tests_py(exercises)
    tests.write_text(tests.read_text() + "\nraise RuntimeError('half-written test')\n")
    assert grader.reload_catalog()  # it loads: the new version is served ...
    _wait_for(lambda: grader.catalog_problem is not None, 60, "the reference check")
    problem = grader.catalog_problem or ""
    assert "double [numpy] cannot be graded" in problem and "half-written test" in problem
    with pytest.raises(ReferenceFailure):  # ... and grading it answers 503 in the service
        grader.grade(grader.catalog.get("double"), "numpy", GOOD, "submit")

    tests.write_text((TEST_EXERCISES / "double" / "numpy" / "tests.py").read_text())
    assert grader.reload_catalog()
    assert grader.catalog_problem is None
    assert grader.grade(grader.catalog.get("double"), "numpy", GOOD, "submit").status == "pass"


def test_the_watcher_reloads_by_itself(grader: Grader, exercises: Path) -> None:
    with CatalogWatcher(grader, interval=0.2) as watcher:
        _add_test(exercises)
        _wait_for(
            lambda: "long_vector" in grader.catalog.get("double").track("numpy").tests,
            20,
            "the watcher to reload the edited tests.py",
        )
        assert watcher.reloads >= 1
    assert "doubles a long vector" in _names(grader, GOOD)


def test_an_edit_made_before_the_watcher_started_is_picked_up(
    grader: Grader, exercises: Path
) -> None:
    serving = grader.catalog
    with CatalogWatcher(grader, interval=60) as unchanged:
        assert unchanged.reloads == 0  # nothing changed: no reload at start
    assert grader.catalog is serving
    _add_test(exercises)  # as if saved while the server was still starting
    with CatalogWatcher(grader, interval=60) as watcher:
        assert watcher.reloads == 1
    assert "long_vector" in grader.catalog.get("double").track("numpy").tests


def test_a_new_sections_toml_made_before_the_watcher_started_is_picked_up(
    grader: Grader, exercises: Path
) -> None:
    (exercises / "sections.toml").write_text('[[sections]]\nname = "Basics"\nsummary = "New."\n')
    with CatalogWatcher(grader, interval=60) as watcher:
        assert watcher.reloads == 1
    assert [(s.name, s.summary) for s in grader.catalog.sections] == [("Basics", "New.")]


def test_the_watcher_ignores_editor_files(grader: Grader, exercises: Path) -> None:
    watcher = CatalogWatcher(grader, interval=0.2)
    watcher._last = snapshot(exercises)
    serving = grader.catalog
    numpy = exercises / "double" / "numpy"
    (numpy / ".tests.py.swp").write_bytes(b"vim")
    (numpy / "tests.py~").write_text("backup")
    (numpy / "__pycache__").mkdir()
    (numpy / "__pycache__" / "tests.cpython-311.pyc").write_bytes(b"\0")
    assert not watcher.check()
    assert grader.catalog is serving
    _add_test(exercises)
    assert watcher.check()
    assert grader.catalog is not serving


def test_the_serve_flag_turns_reload_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DRILL_RELOAD", raising=False)
    assert serve_settings(_parser().parse_args(["serve", "--reload"])).reload is True
    assert serve_settings(_parser().parse_args(["serve", "--port", "8123"])).reload is False
    monkeypatch.setenv("DRILL_RELOAD", "1")
    assert serve_settings(_parser().parse_args(["serve"])).reload is True


def _learner_workers(server: Server) -> set[int]:
    found = set()
    for pid in children(server.proc.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if command[0].endswith(b"bwrap") and b"learner" in command:
            found.add(pid)
    return found


def _submit(server: Server, code: str) -> dict:
    response = httpx.post(
        f"{server.base}/api/exercises/double/submissions",
        json={"track": "numpy", "code": code, "mode": "submit"},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    return response.json()


def _test_count(server: Server) -> int:
    response = httpx.get(f"{server.base}/api/exercises/double", timeout=60)
    assert response.status_code == 200, response.text
    return int(response.json()["tracks"]["numpy"]["test_count"])


def test_drill_serve_reload_end_to_end(tmp_path: Path, exercises: Path) -> None:
    with running_server(
        tmp_path / "var",
        DRILL_RELOAD="1",
        DRILL_RELOAD_INTERVAL="0.2",
        DRILL_EXERCISES_DIR=str(exercises),
        DRILL_WORKERS="1",
    ) as server:
        pid = server.proc.pid
        workers = _learner_workers(server)
        assert len(workers) == 1
        first = _submit(server, WRONG_ON_LONG)
        assert first["status"] == "pass" and first["total"] == 2
        assert _test_count(server) == 2

        _add_test(exercises)
        _wait_for(lambda: _test_count(server) == 3, 60, "the server to serve the new test")

        second = _submit(server, WRONG_ON_LONG)
        assert second["status"] == "fail" and second["total"] == 3
        statuses = {t["name"]: t["status"] for t in second["tests"]}
        assert statuses["doubles a long vector"] == "fail"
        assert _submit(server, GOOD)["status"] == "pass"

        assert server.proc.poll() is None and server.proc.pid == pid
        assert _learner_workers(server) == workers  # the warm workers were not restarted
        assert "catalog reloaded" in server.log.read_text()
