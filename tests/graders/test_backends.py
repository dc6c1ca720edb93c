"""Choosing the sandbox backend: bubblewrap, the loud ``process`` fallback, the refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.errors import SandboxUnavailable
from graders.grading.grader import PROCESS_WARNING, Grader
from tests.conftest import TEST_EXERCISES, make_settings

pytestmark = pytest.mark.sandbox
PASSING = (Path(__file__).parent / "cases" / "passing" / "submission.py").read_text()


def test_bwrap_is_used_when_it_works(test_grader: Grader) -> None:
    assert test_grader.status is not None
    assert test_grader.status.sandbox == "bwrap" and test_grader.status.warning is None


def test_auto_falls_back_to_process_loudly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = make_settings(
        tmp_path, TEST_EXERCISES, sandbox="auto", workers=1, bwrap_path="/nonexistent/bwrap"
    )
    with Grader(settings) as grader:
        assert grader.status is not None
        assert grader.status.sandbox == "process"
        assert grader.status.warning is not None
        assert grader.status.warning.startswith(PROCESS_WARNING)
        assert "bubblewrap (bwrap) is not installed" in grader.status.warning
        assert (
            grader.grade(grader.catalog.get("double"), "numpy", PASSING, "submit").status == "pass"
        )
    assert any("SANDBOX DISABLED" in r.getMessage() for r in caplog.records)


def test_bwrap_mode_refuses_to_start_without_bubblewrap(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, TEST_EXERCISES, sandbox="bwrap", workers=1, bwrap_path="/nonexistent/bwrap"
    )
    with pytest.raises(SandboxUnavailable, match="not installed"):
        Grader(settings).start()


def test_process_backend_still_enforces_limits(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, TEST_EXERCISES, sandbox="process", workers=1)
    loop = (Path(__file__).parent / "cases" / "infinite_loop" / "submission.py").read_text()
    with Grader(settings) as grader:
        result = grader.grade(grader.catalog.get("double"), "numpy", loop, "submit")
    assert result.tests[0].message == (
        "CPU time limit of 2 s exceeded in test 'doubles a matrix', during double(x), "
        "at line 2: `while True:`"
    )
