"""Schema migrations: the head matches the models, a database from before migrations is
adopted, nodes that start together take turns, and ``drill db upgrade``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, insert, inspect, select, text
from sqlalchemy.engine import Connection

from app import migrate, stats
from app.schemas import SubmissionResult
from app.store import Store
from app.tables import Base, SubmissionRow, SubmissionTestRow
from drill.cli import main
from graders.grading.results import LEGACY_NOT_RUN, NOT_RUN_MESSAGE, Status
from graders.settings import ROOT, get_settings
from tests.app.postgres import fresh_database
from tests.shapes import plain

TABLES = {
    "alembic_version",
    "submissions",
    "submission_tests",
    "drafts",
    "rate_buckets",
    "reference_cache",
    "exercise_versions",
    "regrade_runs",
    "accounts",
    "sessions",
    "courses",
    "course_members",
    "assignments",
    "lti_registrations",
    "lti_keys",
    "lti_states",
    "lti_nonces",
    "lti_users",
    "score_outbox",
}
# What Base.metadata.create_all made before there were migrations (sqlite_master of a
# database the earlier code created).
LEGACY_SCHEMA = """
CREATE TABLE submissions (
    id VARCHAR(32) NOT NULL, learner VARCHAR(64) NOT NULL, exercise VARCHAR(100) NOT NULL,
    track VARCHAR(16) NOT NULL, mode VARCHAR(8) NOT NULL,
    exercise_version VARCHAR(32) NOT NULL, status VARCHAR(8) NOT NULL,
    passed INTEGER NOT NULL, total INTEGER NOT NULL, duration_ms FLOAT NOT NULL,
    created_at DATETIME NOT NULL, code TEXT NOT NULL, result JSON NOT NULL,
    PRIMARY KEY (id)
);
CREATE INDEX ix_submissions_exercise ON submissions (exercise);
CREATE INDEX ix_submissions_learner ON submissions (learner);
CREATE INDEX ix_submissions_status ON submissions (status);
CREATE INDEX ix_submissions_created_at ON submissions (created_at);
CREATE TABLE drafts (
    learner VARCHAR(64) NOT NULL, exercise VARCHAR(100) NOT NULL, track VARCHAR(16) NOT NULL,
    code TEXT NOT NULL, updated_at DATETIME NOT NULL,
    PRIMARY KEY (learner, exercise, track)
);
"""
GC = "gradient-checkpointing"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.sandbox)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'drill.db'}"
    return fresh_database()


def differences(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))
    finally:
        engine.dispose()


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


# The indexes the statistics read (app.tables): their columns, in order, and for the
# partial ones the rows they keep (which the comparison with the models does not check).
STATISTICS_INDEXES = {
    "ix_submissions_statistics": None,
    "ix_submission_tests_statistics": None,
    "ix_submission_tests_failures": "pass",
    "ix_submission_tests_not_learners": "learner",
}


def model_indexes() -> dict[str, list[str]]:
    found = {}
    for table in (SubmissionRow.__table__, SubmissionTestRow.__table__):
        for index in table.indexes:  # type: ignore[attr-defined]
            if index.name in STATISTICS_INDEXES:
                found[index.name] = [column.name for column in index.columns]
    return found


def statistics_indexes(url: str) -> dict[str, list[str]]:
    """The statistics indexes of the database at ``url`` (columns in order); a partial
    index must keep its rows' condition."""
    engine = create_engine(url)
    found = {}
    try:
        for table in ("submissions", "submission_tests"):
            for index in inspect(engine).get_indexes(table):
                if index["name"] not in STATISTICS_INDEXES:
                    continue
                kept = STATISTICS_INDEXES[index["name"]]
                where = index.get("dialect_options", {}).get(f"{engine.dialect.name}_where")
                assert (where is None) == (kept is None), (index["name"], where)
                assert kept is None or kept in str(where), (index["name"], where)
                found[str(index["name"])] = [str(c) for c in index["column_names"]]
    finally:
        engine.dispose()
    return found


def test_the_head_revision_matches_the_models(empty_url: str) -> None:
    outcome = migrate.upgrade(empty_url)
    assert (outcome.before, outcome.after, outcome.legacy) == (None, migrate.head(), False)
    assert tables(empty_url) == TABLES
    assert differences(empty_url) == []
    # Each Submit's newest grading is a range of every statistics index (not a look-up).
    assert statistics_indexes(empty_url) == model_indexes()
    assert all("superseded" in columns for columns in model_indexes().values())
    again = migrate.upgrade(empty_url)
    assert again.before == again.after == migrate.head()
    assert again.describe().endswith(f"is at revision {migrate.head()} (already up to date)")


def test_downgrade_to_the_first_revision_and_back(empty_url: str) -> None:
    migrate.upgrade(empty_url)
    engine = create_engine(empty_url)
    try:
        with engine.begin() as connection:
            command.downgrade(migrate.config(connection), migrate.LEGACY_REVISION)
        assert tables(empty_url) == {"alembic_version", "submissions", "drafts"}
    finally:
        engine.dispose()
    assert migrate.upgrade(empty_url).before == migrate.LEGACY_REVISION
    assert differences(empty_url) == []
    assert statistics_indexes(empty_url) == model_indexes()


def test_a_store_can_leave_the_schema_alone(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'drill.db'}", upgrade=False)
    store.close()
    assert store.migration is None and tables(f"sqlite:///{tmp_path / 'drill.db'}") == set()


def legacy_result(sub_id: str, tests: list[dict[str, str]], message: str) -> str:
    status = "error" if not tests else "fail"
    if tests and all(t["status"] == "pass" for t in tests):
        status = "pass"
    return json.dumps(
        {"id": sub_id, "exercise": GC, "track": "numpy", "mode": "submit", "status": status,
         "message": message, "tests": tests}
    )  # fmt: skip


def test_a_database_from_before_migrations_is_stamped_and_filled(tmp_path: Path) -> None:
    path = tmp_path / "drill.db"
    old = sqlite3.connect(path)
    old.executescript(LEGACY_SCHEMA)
    rows = [
        ("s1", [{"name": "first", "status": "pass"}, {"name": "second", "status": "fail",
                                                      "message": "got 2"}], ""),
        ("s2", [{"name": "first", "status": "fail", "message": "got 1"},
                {"name": "second", "status": "fail", "message": "got 2"}], ""),
        ("s3", [], "SyntaxError at line 1"),
        # As earlier code stored a run that timed out at its first test.
        ("s4", [{"name": "first", "status": "error", "message": "timed out after 5 s"},
                {"name": "second", "status": "error", "message": LEGACY_NOT_RUN}], ""),
    ]  # fmt: skip
    for n, (sub_id, tests, message) in enumerate(rows):
        old.execute(
            "INSERT INTO submissions VALUES (?, 'learner', ?, 'numpy', 'submit', 'v', ?, 0, ?, "
            "1.0, ?, 'code', ?)",
            (sub_id, GC, "fail", len(tests), f"2025-01-0{n + 1} 10:00:00.000000",
             legacy_result(sub_id, tests, message)),
        )  # fmt: skip
    old.execute("INSERT INTO drafts VALUES ('learner', ?, 'numpy', 'x = 1', '2025-01-01')", (GC,))
    old.commit()
    old.close()

    store = Store(f"sqlite:///{path}")
    try:
        assert store.migration is not None and store.migration.legacy
        assert (store.migration.before, store.migration.after) == (None, migrate.head())
        assert "made before migrations" in store.migration.describe()
        assert store.get_draft("learner", GC, "numpy") is not None  # the old rows are kept
        assert store.get_submission("s1") is not None
        # The per-test rows of the old results were filled in: the statistics see them.
        # Rows stored before test ids count under the id of today's test of their name.
        today = {"numpy": [("first_id", "first"), ("second_id", "second")]}
        body = plain(stats.exercise_stats(store, GC, today))
        # The test that never ran (an error, as earlier code stored it) is not_run now.
        assert body["tracks"]["numpy"]["tests"] == [
            {
                "id": "first_id",
                "name": "first",
                "runs": 3,
                "failures": 2,
                "not_run": 0,
                "blamed_elsewhere": {},
            },
            {
                "id": "second_id",
                "name": "second",
                "runs": 2,
                "failures": 2,
                "not_run": 1,
                "blamed_elsewhere": {},
            },
        ]
        failures = plain(stats.common_failures(store, GC, {"numpy": []}))["numpy"]
        assert failures == [
            {"message": "got 2", "count": 2, "test": "second", "test_id": None},
            {"message": "got 1", "count": 1, "test": "first", "test_id": None},
            {"message": "SyntaxError at line 1", "count": 1, "test": None, "test_id": None},
            {"message": "timed out after 5 s", "count": 1, "test": "first", "test_id": None},
        ]
        # The stored result is as it was; read as a result, its test is not_run.
        stored = store.get_submission("s4")
        assert stored is not None and stored["tests"][1]["status"] == "error"
        shown = SubmissionResult.model_validate({**stored, "created_at": "2025-01-04"})
        assert shown.tests[1].status == Status.NOT_RUN
    finally:
        store.close()
    assert differences(f"sqlite:///{path}") == []
    reopened = Store(f"sqlite:///{path}")
    reopened.close()
    assert reopened.migration is not None and not reopened.migration.legacy


def insert_old_submission(connection: Connection) -> None:
    """Submission s1, as an older revision stored it, for its test rows to belong to."""
    connection.execute(
        SubmissionRow.__table__.insert(),
        {"id": "s1", "learner": "l", "exercise": GC, "track": "numpy",
         "mode": "submit", "exercise_version": "v", "status": "fail", "passed": 0,
         "total": 2, "duration_ms": 1.0, "created_at": datetime.now(UTC),
         "code": "", "result": {}},
    )  # fmt: skip


def test_the_not_run_revision_rewrites_old_rows_and_back(empty_url: str) -> None:
    engine = create_engine(empty_url)
    tests_table = SubmissionTestRow.__table__
    row = {"submission_id": "s1", "exercise": GC, "mode": "submit", "track": "numpy"}
    try:
        with engine.begin() as connection:
            command.upgrade(migrate.config(connection), "0002")
            insert_old_submission(connection)
            connection.execute(
                tests_table.insert(),
                [
                    {**row, "test": "a", "position": 0, "status": "error", "message": "boom"},
                    {**row, "test": "b", "position": 1, "status": "error",
                     "message": LEGACY_NOT_RUN},
                ],
            )  # fmt: skip
        migrate.upgrade(engine)
        query = select(tests_table.c.test, tests_table.c.status, tests_table.c.message)
        with engine.connect() as connection:
            assert sorted(connection.execute(query).all()) == [
                ("a", "error", "boom"),
                ("b", "not_run", NOT_RUN_MESSAGE),
            ]
        with engine.begin() as connection:
            command.downgrade(migrate.config(connection), "0002")
        with engine.connect() as connection:
            assert sorted(connection.execute(query).all()) == [
                ("a", "error", "boom"),
                ("b", "error", LEGACY_NOT_RUN),
            ]
    finally:
        engine.dispose()


def test_the_blame_revision_reads_old_failures_off_the_graders_own_words(empty_url: str) -> None:
    engine = create_engine(empty_url)
    tests_table = SubmissionTestRow.__table__
    row = {"submission_id": "s1", "exercise": GC, "mode": "submit", "track": "numpy"}
    stored = [
        ("pass", None, None),
        ("not_run", NOT_RUN_MESSAGE, None),
        ("fail", "expected 3, got 4", "learner"),
        ("error", "your code raised ValueError: internal grading error (line 2)", "learner"),
        ("error", "the test failed before calling your code: KeyError: 'x'", "test"),
        ("error", "internal grading error: the sandbox harness failed", "grader"),
        ("error", "the sandbox stopped unexpectedly while running your code", "infrastructure"),
        ("error", "the grading machine was lost while running your code", "infrastructure"),
    ]
    try:
        with engine.begin() as connection:
            command.upgrade(migrate.config(connection), "0004")
            insert_old_submission(connection)
            connection.execute(
                tests_table.insert(),
                [
                    {**row, "test": f"t{i}", "position": i, "status": status, "message": message}
                    for i, (status, message, _) in enumerate(stored)
                ],
            )
        migrate.upgrade(engine)
        query = select(tests_table.c.blame).order_by(tests_table.c.position)
        with engine.connect() as connection:
            assert connection.execute(query).scalars().all() == [b for *_, b in stored]
        with engine.begin() as connection:
            command.downgrade(migrate.config(connection), "0004")
    finally:
        engine.dispose()


def test_the_superseded_revision_marks_the_rows_regrades_replaced_and_back(
    empty_url: str,
) -> None:
    engine = create_engine(empty_url)
    # s1 regraded by r1, itself regraded by r2; s2 never regraded.
    stored = {"s1": None, "r1": "s1", "r2": "r1", "s2": None}
    try:
        with engine.begin() as connection:
            command.upgrade(migrate.config(connection), "0006")
            for n, (sub_id, of) in enumerate(stored.items()):
                connection.execute(
                    insert(SubmissionRow),
                    {"id": sub_id, "learner": "l", "exercise": GC, "track": "numpy",
                     "mode": "submit", "exercise_version": "v", "status": "fail",
                     "passed": 0, "total": 2, "duration_ms": 1.0,
                     "created_at": datetime(2026, 1, 1 + n, tzinfo=UTC), "code": "",
                     "result": {}, "regrade_of": of},
                )  # fmt: skip
                connection.execute(
                    insert(SubmissionTestRow),
                    [
                        {"submission_id": sub_id, "exercise": GC, "mode": "submit",
                         "track": "numpy", "test": f"t{i}", "test_id": f"t{i}",
                         "exercise_version": "v", "position": i, "status": status,
                         "message": None if status == "pass" else "m",
                         "blame": None if status == "pass" else "learner"}
                        for i, status in enumerate(("pass", "fail"))
                    ],
                )  # fmt: skip
        migrate.upgrade(engine)
        s, t = SubmissionRow.__table__.c, SubmissionTestRow.__table__.c
        with engine.connect() as connection:
            submissions = dict(connection.execute(select(s.id, s.superseded)).all())
            by_tests = connection.execute(select(t.submission_id, t.superseded)).all()
        assert submissions == {"s1": True, "r1": True, "r2": False, "s2": False}
        assert sorted(by_tests) == sorted((i, submissions[i]) for i in stored for _ in "ab")
        # The statistics count each Submit once, by its newest grading: r2 and s2.
        store = Store(empty_url)
        try:
            numbers = plain(stats.exercise_stats(store, GC, {"numpy": []}, version="v"))
        finally:
            store.close()
        numpy = numbers["tracks"]["numpy"]
        assert (numpy["submissions"], [t["runs"] for t in numpy["tests"]]) == (2, [2, 2])
        with engine.begin() as connection:
            command.downgrade(migrate.config(connection), "0006")
        columns = {
            table: {c["name"] for c in inspect(engine).get_columns(table)}
            for table in ("submissions", "submission_tests")
        }
        assert not any("superseded" in names for names in columns.values())
        with engine.connect() as connection:  # the rows are kept
            assert sorted(connection.execute(select(s.id)).scalars()) == sorted(stored)
            assert len(connection.execute(select(t.submission_id)).all()) == 8
    finally:
        engine.dispose()


@pytest.fixture
def db_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "var" / "cli.db"
    monkeypatch.setenv("DRILL_DB", str(path))
    get_settings.cache_clear()
    yield path
    get_settings.cache_clear()


def test_drill_db_upgrade(db_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db", "upgrade"]) == 0
    created = capsys.readouterr().out
    assert created == f"database at sqlite:///{db_env} is at revision {migrate.head()} (created)\n"
    assert main(["db", "upgrade"]) == 0
    assert "(already up to date)" in capsys.readouterr().out


def test_the_url_is_shown_without_its_password() -> None:
    shown = migrate.Upgrade("postgresql://drill:***@db/drill", None, "0002", False)
    assert (
        shown.describe()
        == "database at postgresql://drill:***@db/drill is at revision 0002 (created)"
    )


# Each process waits for the same moment, then upgrades; the migrations are slowed down
# so that, without the lock, both would be inside them at once.
RACER = """
import json, sys, time
from alembic import command
from app import migrate

real = command.upgrade
def slow(*args, **kwargs):
    time.sleep(0.5)
    real(*args, **kwargs)
command.upgrade = slow
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
outcome = migrate.upgrade(sys.argv[1])
print(json.dumps({"before": outcome.before, "after": outcome.after, "done": time.time()}))
"""


@pytest.mark.sandbox
def test_two_nodes_upgrading_at_once_take_turns() -> None:
    url = fresh_database()
    start = time.time() + 3  # both processes have imported alembic by then
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, url, str(start)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outcomes = []
    for racer in racers:
        out, err = racer.communicate(timeout=60)
        assert racer.returncode == 0, err
        outcomes.append(json.loads(out))
    # One created the schema; the other waited for it, then found it at the head.
    assert sorted(o["before"] or "" for o in outcomes) == ["", migrate.head()]
    assert all(o["after"] == migrate.head() for o in outcomes)
    assert tables(url) == TABLES and differences(url) == []
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            versions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    finally:
        engine.dispose()
    assert versions == [(migrate.head(),)]
