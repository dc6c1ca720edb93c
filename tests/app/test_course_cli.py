"""``drill course`` and ``drill learner``, on a SQLite file through DRILL_DB."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.accounts import Accounts
from app.store import Store
from drill.cli import main
from graders.settings import get_settings
from tests.catalog import shipped_exercises_dir

GC = "gradient-checkpointing"


@pytest.fixture
def db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("DRILL_DB", str(tmp_path / "cli.db"))
    monkeypatch.setenv("DRILL_EXERCISES_DIR", str(shipped_exercises_dir()))
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


def test_a_course_made_assigned_and_exported_from_the_command_line(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store(db)
    accounts = Accounts(store)
    accounts.sign_up("teach", "a long password", "Teacher")
    student = accounts.sign_up("stud", "a long password", "Student")
    store.close()
    assert main(["course", "create", "Tensors 101", "--instructor", "teach"]) == 0
    course_id, code, title = capsys.readouterr().out.strip().split("\t")
    assert title == "Tensors 101" and len(code) == 8
    assert (
        main(["course", "assign", code, GC, "numpy", "--deadline", "2030-01-01T12:00+01:00"]) == 0
    )
    assert "2030-01-01T11:00:00+00:00" in capsys.readouterr().out  # kept in UTC
    assert main(["course", "assign", code, GC, "fortran"]) == 1
    assert "no exercise" in capsys.readouterr().err
    store = Store(db)
    from app.courses import Courses

    Courses(store).join(student, code)
    store.close()
    assert main(["course", "roster", course_id]) == 0
    roster = capsys.readouterr().out
    assert (
        "instructor\tTeacher\tteach\towner" in roster and "learner\tStudent\tstud\tcode" in roster
    )
    assert main(["course", "gradebook", course_id]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["name"] for r in rows] == ["Student"]
    assert rows[0][f"{GC} [numpy] solved"] == "no"
    assert main(["course", "gradebook", "NOSUCH"]) == 1


def test_drill_learner_delete(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(db)
    Accounts(store).sign_up("gone", "a long password")
    store.close()
    assert main(["learner", "show", "gone"]) == 0
    assert "0 submissions" in capsys.readouterr().out
    assert main(["learner", "delete", "gone", "--yes"]) == 0
    assert main(["learner", "show", "gone"]) == 1
    assert "no account is named 'gone'" in capsys.readouterr().err
