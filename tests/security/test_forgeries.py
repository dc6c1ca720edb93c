"""The forgery suite: submissions that try to pass without solving, through the service.

Each file of ``forgeries/`` is one technique against a shipped exercise. Its header says
which exercise it forges (``# forges: SLUG TRACK``), which guards stop it
(``# guards: ...``, named as in ``unguarded.GUARDS``) and what must happen
(``# expect: ...``, read like the attack suite's). Every forgery is submitted to a real
``drill serve`` with bubblewrap and must not pass; then it is graded in a plain process
with exactly its guards undone (``tests/security/unguarded.py``) and must pass there,
which proves that those guards, and nothing else, are what stop it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graders.settings import ROOT
from tests.program_output import last_json_line
from tests.security.bounded_report import with_bounded_report
from tests.security.test_attacks import (
    assert_reports_are_bounded,
    describe,
    parse_expect,
    reports,
)
from tests.serving import Server, running_server

pytestmark = [pytest.mark.sandbox, pytest.mark.catalog]

FORGERIES_DIR = Path(__file__).parent / "forgeries"
FORGERIES = sorted(FORGERIES_DIR.glob("*.py"))
PROVABLE = [p for p in FORGERIES if "run-loads-examples" not in p.read_text()]
REQUEST_TIMEOUT = 30.0


def header(path: Path, key: str) -> list[str]:
    match = re.search(rf"^# {key}: (.*)$", path.read_text(), re.M)
    assert match, f"{path.name} has no '# {key}:' line"
    return match.group(1).split()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(
        tmp_path_factory.mktemp("forgeries"),
        DRILL_RATE_PER_MINUTE="1000000",
        DRILL_RATE_BURST="100000",
    ) as running:
        # References warmed first: the first Submit would otherwise wait for the reference
        # worker's start-up (it imports torch) inside its own time budget.
        for row in httpx.get(f"{running.base}/api/exercises", timeout=30).json():
            httpx.get(f"{running.base}/api/exercises/{row['slug']}", timeout=120)
        yield running


def submit(server: Server, path: Path, mode: str = "submit") -> dict[str, Any]:
    slug, track = header(path, "forges")
    response = httpx.post(
        f"{server.base}/api/exercises/{slug}/submissions",
        json={"track": track, "code": with_bounded_report(path.read_text()), "mode": mode},
        timeout=REQUEST_TIMEOUT,
    )
    assert response.status_code == 200, response.text[:2000]
    return response.json()


def test_the_suite_covers_every_guard() -> None:
    from tests.security.unguarded import GUARDS

    named = {g for p in FORGERIES for g in header(p, "guards")}
    assert set(GUARDS) | {"run-loads-examples"} == named
    for path in FORGERIES:
        assert_reports_are_bounded(path)


@pytest.mark.parametrize("path", FORGERIES, ids=[p.name for p in FORGERIES])
def test_forgery_does_not_pass(server: Server, path: Path) -> None:
    expect = parse_expect(path)
    kind = expect.get("kind", "verdict")
    if kind == "search":
        # The hidden tests are nowhere in a Run's process; the same search in a Submit,
        # where they are loaded, finds them (so the search is able to find them).
        run, submitted = submit(server, path, "run"), submit(server, path, "submit")
        assert run["status"] == "pass", describe(run)
        assert all(r["found"] == [] and r["tried"] > 0 for r in reports(run)), reports(run)
        assert any(r["found"] for r in reports(submitted)), reports(submitted)
        return
    result = submit(server, path)
    assert result["status"] != "pass", describe(result)
    assert result["passed"] < result["total"], describe(result)
    messages = [result["message"], *(t["message"] for t in result["tests"])]
    if "message~" in expect:
        assert re.search(expect["message~"], result["message"], re.M), describe(result)
    if "test_message~" in expect:
        assert any(re.search(expect["test_message~"], m, re.M) for m in messages), describe(result)
    if kind == "frame-walk":
        # The walk reached the test's record: what stops it is that the record is not
        # there to fill.
        walks = reports(result)
        assert walks and all(w["found"] >= 1 and not w["filled"] for w in walks), walks


@pytest.mark.parametrize("path", PROVABLE, ids=[p.name for p in PROVABLE])
def test_forgery_passes_without_its_guards(path: Path) -> None:
    slug, track = header(path, "forges")
    guards = header(path, "guards")
    completed = subprocess.run(
        [sys.executable, "-m", "tests.security.unguarded", slug, track, str(path), *guards],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    result = last_json_line(completed, f"the unguarded grading of {path.name}")
    assert result["status"] == "pass", describe(result)
