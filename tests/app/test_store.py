"""The store, the statistics, the reference cache and the shared rate limiter, on SQLite
and on a real PostgreSQL: the same calls must give the same answers on both."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, func, insert, select, update
from sqlalchemy.exc import IntegrityError, OperationalError

from app import stats
from app.errors import RateLimited
from app.limits import DatabaseRateLimiter, RateLimiter, rate_limiter
from app.retention import OutputRetention
from app.store import (
    Store,
    StoreUnavailable,
    database_errors,
    history_query,
    new_id,
    write_regrades,
)
from app.tables import Base, RateBucketRow, SubmissionRow, SubmissionTestRow
from graders.grading.results import (
    OUTPUT_EXPIRED,
    OUTPUT_LIMIT,
    SUBMISSION_OUTPUT_BYTES,
    TRUNCATION_MARKER,
    Blame,
    GradeResult,
    Status,
    TestResult,
    stored_size,
)
from tests.app.postgres import fresh_database
from tests.conftest import make_settings
from tests.shapes import plain

GC = "gradient-checkpointing"
REFERENCE = ["first", "second", "third"]


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.sandbox)],
)
def database(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('store') / 'drill.db'}"
    else:
        url = fresh_database()
    store = Store(url)
    yield store
    store.close()


@pytest.fixture
def store(database: Store) -> Iterator[Store]:
    """The module's store, emptied after each test."""
    yield database
    with database.engine.begin() as connection:
        for table in reversed(Base.metadata.sorted_tables):
            connection.execute(table.delete())


def graded(
    tests: dict[str, tuple[str, str]] | None = None,
    track: str = "numpy",
    mode: str = "submit",
    message: str = "",
    output: str = "",
) -> GradeResult:
    """A result whose tests are ``{name: (status, message)}``; no tests: a failed run."""
    found = [
        TestResult(name=name, id=name, status=Status(status), message=text, output=output)
        for name, (status, text) in (tests or {}).items()
    ]
    passed = sum(t.status == Status.PASS for t in found)
    status = Status.FAIL if passed < len(found) else Status.PASS
    return GradeResult(
        exercise=GC,
        track=track,
        mode=mode,  # type: ignore[arg-type]
        status=status if found else Status.ERROR,
        message=message or f"{passed}/{len(found)} tests passed",
        passed=passed,
        total=len(found),
        tests=found,
    )


def track_tests(names: dict[str, list[str]]) -> dict[str, list[tuple[str, str]]]:
    """Each track's tests as (id, name), the id being the name."""
    return {track: [(n, n) for n in tests] for track, tests in names.items()}


def save(store: Store, result: GradeResult, learner: str = "learner-a") -> dict[str, Any]:
    return store.save_submission(learner, result, "code", "v1")


def count(store: Store, table: Any) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table)).scalar_one())


# --- submissions ---


def test_a_saved_submission_reads_back_as_shown(store: Store) -> None:
    shown = save(store, graded({"first": ("pass", ""), "second": ("fail", "got 2")}))
    assert shown["status"] == "fail" and shown["passed"] == 1
    assert store.get_submission(shown["id"]) == shown
    assert store.get_submission("nope") is None
    assert count(store, SubmissionTestRow) == 2


def test_a_given_id_is_used_and_a_duplicate_keeps_the_first(store: Store) -> None:
    first = store.save_submission("a", graded({"first": ("pass", "")}), "one", "v1", "job-1")
    assert first["id"] == "job-1"
    late = store.save_submission("a", graded({"first": ("fail", "late")}), "two", "v1", "job-1")
    assert late == first  # the stored result, not the late one
    assert store.get_submission("job-1") == first
    assert count(store, SubmissionRow) == 1
    assert count(store, SubmissionTestRow) == 1  # and none of the late one's test rows


def test_nul_characters_are_stored_as_replacement_characters(store: Store) -> None:
    # PostgreSQL's text and jsonb refuse NUL; learner output can hold it.
    shown = save(store, graded({"first": ("fail", "a\x00b")}, output="x\x00y"))
    test = shown["tests"][0]
    assert (test["message"], test["output"]) == ("a\ufffdb", "x\ufffdy")
    assert store.get_submission(shown["id"]) == shown


def test_solved_and_drafts(store: Store) -> None:
    save(store, graded({"first": ("pass", "")}))
    save(store, graded({"first": ("pass", "")}, mode="run"), learner="learner-b")
    assert store.solved("learner-a") == {GC} and store.solved("learner-b") == set()
    assert store.get_draft("a", GC, "numpy") is None
    store.save_draft("a", GC, "numpy", "x = 1")
    saved = store.save_draft("a", GC, "numpy", "x = 2")
    assert store.get_draft("a", GC, "numpy") == saved and saved["code"] == "x = 2"


def test_history_lists_a_learners_own_submissions_newest_first(store: Store) -> None:
    first = save(store, graded({"first": ("fail", "m")}))
    run = save(store, graded({"first": ("pass", "")}, mode="run"))
    torch = save(store, graded({"first": ("pass", "")}, track="torch"))
    save(store, graded({"first": ("pass", "")}), learner="learner-b")  # someone else's
    rows = store.history("learner-a", GC)
    assert [r["id"] for r in rows] == [torch["id"], run["id"], first["id"]]
    assert rows[-1] == {
        "id": first["id"],
        "track": "numpy",
        "mode": "submit",
        "status": "fail",
        "passed": 0,
        "total": 1,
        "duration_ms": 0.0,
        "created_at": first["created_at"],
        "regrade_of": None,
    }
    assert [r["id"] for r in store.history("learner-a", GC, "numpy")] == [run["id"], first["id"]]
    assert [r["id"] for r in store.history("learner-a", GC, limit=1)] == [torch["id"]]
    assert store.history("learner-a", "another-exercise") == []
    assert store.history("nobody", GC) == []


@pytest.mark.parametrize("track", [None, "numpy"], ids=["all-tracks", "one-track"])
def test_history_reads_its_index_in_order(store: Store, track: str | None) -> None:
    # No sort step and no scan of the table: the index gives the rows newest first.
    query = history_query("learner-a", GC, track, 20)
    with store.engine.connect() as connection:
        if store.dialect == "sqlite":
            compiled = query.compile(connection, compile_kwargs={"literal_binds": True})
            plan = " ".join(str(row[-1]) for row in connection.exec_driver_sql(
                f"EXPLAIN QUERY PLAN {compiled}"
            ))  # fmt: skip
            assert "ix_submissions_learner_history" in plan and "TEMP B-TREE" not in plan, plan
        else:
            connection.exec_driver_sql("SET enable_seqscan = off")  # a tiny table otherwise
            compiled = query.compile(connection, compile_kwargs={"literal_binds": True})
            plan = " ".join(r[0] for r in connection.exec_driver_sql(f"EXPLAIN {compiled}"))
            assert "ix_submissions_learner_history" in plan and "Sort" not in plan, plan


def test_progress_per_track_counts_submits_and_a_passing_submit_solves(store: Store) -> None:
    save(store, graded({"first": ("fail", "m")}))
    save(store, graded({"first": ("pass", "")}))
    last = save(store, graded({"first": ("fail", "m")}, mode="run"))  # a Run: no attempt
    ran = save(store, graded({"first": ("pass", "")}, track="torch", mode="run"))
    save(store, graded({"first": ("pass", "")}, track="torch"), learner="learner-b")
    progress = store.progress("learner-a")
    assert progress == {
        (GC, "numpy"): (True, 2, last["id"]),
        (GC, "torch"): (False, 0, ran["id"]),  # a passing Run solves nothing
    }
    assert progress[GC, "numpy"].last_submission == last["id"]
    assert store.progress("learner-b") == {
        (GC, "torch"): (True, 1, store.history("learner-b", GC)[0]["id"])
    }
    assert store.progress("learner-a", "another-exercise") == {}
    assert store.progress("learner-a", GC) == progress
    assert store.progress("nobody") == {}


# --- statistics ---


def test_tests_that_did_not_run_are_neither_runs_nor_failures(store: Store) -> None:
    stopped = {
        "first": ("error", "timed out after 10 s"),
        "second": ("not_run", "the run ended during test 'first'"),
        "third": ("not_run", "the run ended during test 'first'"),
    }
    save(store, graded(stopped))
    save(store, graded({"first": ("pass", ""), "second": ("fail", "m2"), "third": ("pass", "")}))
    numpy = plain(stats.exercise_stats(store, GC, track_tests({"numpy": REFERENCE})))["tracks"][
        "numpy"
    ]
    assert numpy["tests"] == [
        {
            "id": "first",
            "name": "first",
            "runs": 2,
            "failures": 1,
            "not_run": 0,
            "blamed_elsewhere": {},
        },
        {
            "id": "second",
            "name": "second",
            "runs": 1,
            "failures": 1,
            "not_run": 1,
            "blamed_elsewhere": {},
        },
        {
            "id": "third",
            "name": "third",
            "runs": 1,
            "failures": 0,
            "not_run": 1,
            "blamed_elsewhere": {},
        },
    ]
    assert plain(stats.common_failures(store, GC, track_tests({"numpy": REFERENCE})))["numpy"] == [
        {"message": "timed out after 10 s", "count": 1, "test": "first", "test_id": "first"},
        {"message": "m2", "count": 1, "test": "second", "test_id": "second"},
    ]


def test_statistics_count_submits_and_each_test(store: Store) -> None:
    save(store, graded(dict.fromkeys(REFERENCE, ("pass", ""))))
    save(store, graded({"first": ("pass", ""), "second": ("fail", "m2"), "third": ("error", "x")}))
    save(store, graded({"first": ("fail", "m1"), "second": ("fail", "m2"), "third": ("pass", "")}))
    save(store, graded(dict.fromkeys(REFERENCE, ("fail", "no"))), learner="b")  # a Run, below
    save(store, graded({"first": ("fail", "run")}, mode="run"))
    body = plain(
        stats.exercise_stats(store, GC, track_tests({"numpy": REFERENCE, "torch": ["t1"]}))
    )
    assert body == {
        "slug": GC,
        "version": None,
        "tracks": {
            "numpy": {
                "submissions": 4,
                "passed": 1,
                "tests": [
                    {
                        "id": "first",
                        "name": "first",
                        "runs": 4,
                        "failures": 2,
                        "not_run": 0,
                        "blamed_elsewhere": {},
                    },
                    {
                        "id": "second",
                        "name": "second",
                        "runs": 4,
                        "failures": 3,
                        "not_run": 0,
                        "blamed_elsewhere": {},
                    },
                    {
                        "id": "third",
                        "name": "third",
                        "runs": 4,
                        "failures": 2,
                        "not_run": 0,
                        "blamed_elsewhere": {},
                    },
                ],
                "blamed_elsewhere": {},
            },
            "torch": {
                "submissions": 0,
                "passed": 0,
                "tests": [
                    {
                        "id": "t1",
                        "name": "t1",
                        "runs": 0,
                        "failures": 0,
                        "not_run": 0,
                        "blamed_elsewhere": {},
                    }
                ],
                "blamed_elsewhere": {},
            },
        },
    }
    assert plain(stats.overview(store)) == {
        (GC, "numpy"): {"submissions": 4, "passed": 1, "learners": 2}
    }


def test_tests_and_tracks_seen_only_in_older_results_follow(store: Store) -> None:
    save(store, graded({"first": ("pass", ""), "old-b": ("fail", "b")}))
    save(store, graded({"old-c": ("pass", "")}))
    save(store, graded({"old-a": ("pass", "")}))
    save(store, graded({"gone": ("pass", "")}, track="jax"))
    body = plain(stats.exercise_stats(store, GC, track_tests({"numpy": ["first", "second"]})))
    assert list(body["tracks"]) == ["numpy", "jax"]
    names = [t["name"] for t in body["tracks"]["numpy"]["tests"]]
    # The reference's, then as results list them (a position, then the name).
    assert names == ["first", "second", "old-a", "old-c", "old-b"]
    assert body["tracks"]["jax"] == {
        "submissions": 1,
        "passed": 1,
        "tests": [
            {
                "id": "gone",
                "name": "gone",
                "runs": 1,
                "failures": 0,
                "not_run": 0,
                "blamed_elsewhere": {},
            }
        ],
        "blamed_elsewhere": {},
    }


def test_common_failures_rank_by_count_then_first_seen(store: Store) -> None:
    save(store, graded({"first": ("fail", "late tie")}))  # seen first, among the ties
    save(store, graded({"second": ("fail", "often")}))
    save(store, graded({"second": ("fail", "often")}))
    save(store, graded({"third": ("fail", "tie")}))
    save(store, graded(message="SyntaxError at line 1"))  # no tests: the whole run failed
    save(store, graded(message="SyntaxError at line 1"))
    save(store, graded({"first": ("pass", "")}, track="torch"))
    top = plain(
        stats.common_failures(store, GC, track_tests({"numpy": REFERENCE, "torch": REFERENCE}))
    )
    assert top == {
        "numpy": [
            {"message": "often", "count": 2, "test": "second", "test_id": "second"},
            {
                "message": "SyntaxError at line 1",
                "count": 2,
                "test": stats.WHOLE_RUN,
                "test_id": None,
            },
            {"message": "late tie", "count": 1, "test": "first", "test_id": "first"},
            {"message": "tie", "count": 1, "test": "third", "test_id": "third"},
        ],
        "torch": [],
    }
    assert (
        plain(stats.common_failures(store, GC, track_tests({"numpy": []}), top=1))["numpy"]
        == top["numpy"][:1]
    )
    # A failure of the whole run counts as a Submit, not as a run of any test.
    numpy = plain(stats.exercise_stats(store, GC, track_tests({"numpy": REFERENCE})))["tracks"][
        "numpy"
    ]
    assert numpy["submissions"] == 6 and sum(t["runs"] for t in numpy["tests"]) == 4
    report = plain(
        stats.exercise_report(store, GC, track_tests({"numpy": REFERENCE, "torch": REFERENCE}))
    )
    assert report == {
        "stats": plain(
            stats.exercise_stats(store, GC, track_tests({"numpy": REFERENCE, "torch": REFERENCE}))
        ),
        "failures": top,
    }


def test_long_messages_are_grouped_as_clipped(store: Store) -> None:
    for tail in ("A", "B"):  # differ only past the clip: one group
        save(store, graded({"first": ("fail", "x" * 1500 + tail)}))
    (failure,) = plain(stats.common_failures(store, GC, track_tests({"numpy": REFERENCE})))["numpy"]
    assert failure["count"] == 2
    assert failure["message"] == "x" * (stats.MESSAGE_CHARS - 1) + "…"


def test_statistics_read_the_table_not_the_results(store: Store) -> None:
    # The aggregates come from submission_tests: a stored result is not read again.
    save(store, graded({"first": ("fail", "m")}))
    with store.engine.begin() as connection:
        connection.execute(SubmissionRow.__table__.update().values(result={}))
    numpy = plain(stats.exercise_stats(store, GC, track_tests({"numpy": ["first"]})))["tracks"][
        "numpy"
    ]
    assert numpy["tests"] == [
        {
            "id": "first",
            "name": "first",
            "runs": 1,
            "failures": 1,
            "not_run": 0,
            "blamed_elsewhere": {},
        }
    ]


# --- the reference cache ---


def test_the_reference_cache_keeps_the_first_save(store: Store) -> None:
    cache = store.reference_cache
    assert cache.load("k1") is None
    cache.save("k1", {"key": "k1", "tests": [], "results": {"a": 1}})
    cache.save("k1", {"key": "k1", "tests": [], "results": {"a": 2}})  # another node, later
    assert cache.load("k1") == {"key": "k1", "tests": [], "results": {"a": 1}}
    with cache.claim("k1"), cache.claim("k2"):  # other keys do not wait for this one
        assert cache.load("k2") is None


# --- the shared rate limiter ---


class Clock:
    """Seconds since the epoch, moved by hand: the limiter's refills without sleeping and
    without the database's clock."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def test_the_database_limiter_admits_a_burst_then_refills(store: Store) -> None:
    clock = Clock()
    limiter = DatabaseRateLimiter(store, per_minute=6, burst=2, clock=clock)  # a token per 10 s
    limiter.check("10.0.0.1")
    limiter.check("10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        limiter.check("10.0.0.1")
    assert refused.value.retry_after == 10
    limiter.check("10.0.0.2")  # a bucket per client
    clock.now += 12  # 1.2 tokens
    limiter.check("10.0.0.1")
    with pytest.raises(RateLimited) as refused:
        limiter.check("10.0.0.1")
    assert refused.value.retry_after == 8  # 0.2 of a token left: 8 s to the next
    clock.now += 8
    limiter.check("10.0.0.1")


def test_a_refused_check_takes_nothing_and_says_how_long(store: Store) -> None:
    clock = Clock()
    limiter = DatabaseRateLimiter(store, per_minute=1, burst=1, clock=clock)  # a token a minute
    limiter.check("c")
    waits = []
    for _ in range(3):
        clock.now += 1
        with pytest.raises(RateLimited) as refused:
            limiter.check("c")
        waits.append(refused.value.retry_after)
    assert waits == [59, 58, 57]  # refusals do not push it back


def test_idle_buckets_are_pruned(store: Store) -> None:
    clock = Clock()
    limiter = DatabaseRateLimiter(store, per_minute=60, burst=5, clock=clock)  # full in 5 s
    limiter.check("recent")
    with store.engine.begin() as connection:
        connection.execute(
            insert(RateBucketRow), [{"client": "idle", "tokens": 0.0, "stamp": clock.now - 6}]
        )
    assert limiter.prune() == 1
    with store.engine.connect() as connection:
        assert connection.execute(select(RateBucketRow.client)).scalars().all() == ["recent"]
    clock.now += 6
    assert limiter.prune() == 1  # "recent" is idle for a full refill now


def test_the_factory_shares_buckets_only_on_postgresql(store: Store, tmp_path: Path) -> None:
    limiter = rate_limiter(make_settings(tmp_path, tmp_path), store)
    shared = store.dialect == "postgresql"
    assert isinstance(limiter, DatabaseRateLimiter if shared else RateLimiter)


# --- what a submission may store, and for how long ---


def test_one_submission_stores_at_most_its_output_budget(store: Store) -> None:
    """Eight tests each writing their 16 K characters of escapes (six bytes each when
    stored): the result keeps SUBMISSION_OUTPUT_BYTES of output, not about 0.8 MB."""
    tests = {f"test {i}": ("fail", "wrong") for i in range(8)}
    shown = save(store, graded(tests, output="\x1b" * 20_000))
    with store.engine.connect() as connection:
        stored = connection.execute(select(SubmissionRow.result)).scalar_one()
    outputs = sum(stored_size(t["output"]) for t in stored["tests"])
    assert outputs <= SUBMISSION_OUTPUT_BYTES < 8 * stored_size("\x1b" * OUTPUT_LIMIT)
    assert shown["tests"][0]["output"].startswith("\x1b" * 1000)  # the first test keeps its own
    assert all(t["output_truncated"] for t in stored["tests"])
    assert stored["tests"][-1]["output"] in ("", TRUNCATION_MARKER)  # nothing left for it


def test_old_outputs_expire_and_verdicts_stay(store: Store) -> None:
    old = save(store, graded({"a": ("fail", "wrong")}, output="printed long ago"))
    new = save(store, graded({"a": ("pass", "")}, output="printed today"), "learner-b")
    with store.engine.begin() as connection:
        connection.execute(
            update(SubmissionRow)
            .where(SubmissionRow.id == old["id"])
            .values(created_at=datetime.now(UTC) - timedelta(days=40))
        )
    retention = OutputRetention(store, days=30)
    assert retention.run_once() == 1
    expired, kept = store.get_submission(old["id"]), store.get_submission(new["id"])
    assert expired is not None and kept is not None
    assert expired["tests"][0]["output"] == OUTPUT_EXPIRED
    assert (expired["status"], expired["tests"][0]["message"]) == ("fail", "wrong")
    assert kept["tests"][0]["output"] == "printed today"
    GradeResult.model_validate(expired)  # still a result every reader understands
    assert retention.run_once() == 0  # done once
    assert OutputRetention(store, days=30).run_once() == 0  # another node: nothing to do


def test_what_a_module_printed_while_loading_expires_too(store: Store) -> None:
    """A result whose tests printed nothing but whose module did while loading: its load
    output goes as a test's output does."""
    result = graded({"a": ("pass", "")}).model_copy(update={"load_output": "printed at import"})
    old = save(store, result)
    with store.engine.begin() as connection:
        connection.execute(
            update(SubmissionRow)
            .where(SubmissionRow.id == old["id"])
            .values(created_at=datetime.now(UTC) - timedelta(days=40))
        )
    assert OutputRetention(store, days=30).run_once() == 1
    expired = store.get_submission(old["id"])
    assert expired is not None and expired["load_output"] == OUTPUT_EXPIRED
    assert expired["tests"][0]["output"] == ""  # nothing to replace there
    GradeResult.model_validate(expired)
    assert OutputRetention(store, days=30).run_once() == 0


# --- database errors ---


def test_database_errors_become_store_unavailable() -> None:
    """A database that is down, locked or read-only (OperationalError) becomes the 503 the
    routes answer; the driver's message stays, and the error is the cause."""
    locked = OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked"))
    with (
        pytest.raises(StoreUnavailable, match=r"^database is locked$") as raised,
        database_errors(),
    ):
        raise locked
    assert raised.value.__cause__ is locked
    with (
        pytest.raises(StoreUnavailable, match=r"^cannot migrate: database is locked$"),
        database_errors("cannot migrate"),
    ):
        raise locked


def test_database_errors_let_other_errors_through() -> None:
    duplicate = IntegrityError("INSERT ...", {}, sqlite3.IntegrityError("UNIQUE constraint"))
    with pytest.raises(IntegrityError) as raised, database_errors():
        raise duplicate
    assert raised.value is duplicate
    with database_errors():
        pass  # nothing raised, nothing to translate


def test_failures_not_the_learners_doing_are_counted_apart(store: Store) -> None:
    """Every failure counts in ``failures``; those due to the exercise's test, the grader
    or a lost machine are also counted by blame, per test and per track (whole runs too).
    The blame stored is the result's, never read off a message a learner's code wrote."""

    def result(blames: dict[str, tuple[str, Blame]]) -> GradeResult:
        found = [
            TestResult(name=n, id=n, status=Status.ERROR, message=m, blame=b)
            for n, (m, b) in blames.items()
        ]
        return GradeResult(
            exercise=GC, track="numpy", mode="submit", status=Status.FAIL, message="", tests=found
        )

    save(store, result({"first": ("internal grading error (my words)", Blame.LEARNER)}))
    save(store, result({"first": ("KeyError", Blame.TEST), "second": ("lost", Blame.TEST)}))
    save(store, result({"second": ("the sandbox stopped", Blame.INFRASTRUCTURE)}))
    lost = GradeResult(
        exercise=GC,
        track="numpy",
        mode="submit",
        status=Status.ERROR,
        message="the grading machine was lost",
        blame=Blame.INFRASTRUCTURE,
    )
    save(store, lost)
    save(store, result({"first": ("a Run", Blame.GRADER)}).model_copy(update={"mode": "run"}))
    numpy = plain(stats.exercise_stats(store, GC, track_tests({"numpy": ["first", "second"]})))
    numpy = numpy["tracks"]["numpy"]
    first, second = numpy["tests"]
    assert (first["failures"], first["blamed_elsewhere"]) == (2, {"test": 1})
    assert (second["failures"], second["blamed_elsewhere"]) == (2, {"test": 1, "infrastructure": 1})
    assert numpy["blamed_elsewhere"] == {"test": 2, "infrastructure": 2}


# --- regrades: the superseded flag ---


def regrade_of(store: Store, sub_id: str, result: GradeResult) -> dict[str, Any]:
    """A ``submissions`` row regrading ``sub_id`` (as app.regrade writes one)."""
    with store.engine.connect() as connection:
        old = connection.execute(select(SubmissionRow).where(SubmissionRow.id == sub_id)).one()
    regrade_id = new_id()
    return {
        "id": regrade_id,
        "learner": old.learner,
        "exercise": old.exercise,
        "track": old.track,
        "mode": "submit",
        "exercise_version": "v2",
        "status": result.status.value,
        "passed": result.passed,
        "total": result.total,
        "duration_ms": 0.0,
        "created_at": datetime.now(UTC),
        "code": old.code,
        "result": {"id": regrade_id, **result.model_dump(mode="json"), "regrade": {"of": sub_id}},
        "regrade_of": sub_id,
        "regrade_run": "run-1",
    }


def flags(store: Store) -> tuple[dict[str, bool], dict[str, set[bool]]]:
    """Each submission's ``superseded``, and the values its test rows hold."""
    s, t = SubmissionRow, SubmissionTestRow
    with store.engine.connect() as connection:
        rows = dict(connection.execute(select(s.id, s.superseded)).all())
        tests: dict[str, set[bool]] = {}
        for sub_id, superseded in connection.execute(select(t.submission_id, t.superseded)):
            tests.setdefault(sub_id, set()).add(superseded)
    return rows, tests


def test_a_regrade_marks_the_row_it_replaces_and_its_tests_in_one_transaction(
    store: Store,
) -> None:
    old = save(store, graded({"first": ("pass", ""), "second": ("fail", "m")}))
    other = save(store, graded({"first": ("pass", "")}))
    row = regrade_of(store, old["id"], graded({"first": ("fail", "n"), "second": ("pass", "")}))
    # Stored together or not at all: a transaction that fails after it leaves no trace.
    with pytest.raises(RuntimeError), store.engine.begin() as connection:
        write_regrades(connection, [row])
        raise RuntimeError("the transaction fails after the regrade")
    assert flags(store) == (
        {old["id"]: False, other["id"]: False},
        {old["id"]: {False}, other["id"]: {False}},
    )
    with store.engine.begin() as connection:
        write_regrades(connection, [row])
    expected = (
        {old["id"]: True, other["id"]: False, row["id"]: False},
        {old["id"]: {True}, other["id"]: {False}, row["id"]: {False}},
    )
    assert flags(store) == expected
    numpy = plain(stats.exercise_stats(store, GC, track_tests({"numpy": ["first", "second"]})))
    numpy = numpy["tracks"]["numpy"]
    assert (numpy["submissions"], numpy["passed"]) == (2, 1)
    assert [(t["runs"], t["failures"]) for t in numpy["tests"]] == [(2, 1), (1, 0)]
    # The store keeps one regrade per row: a second one is refused and changes nothing.
    again = {**row, "id": "another", "result": {**row["result"], "id": "another"}}
    with pytest.raises(IntegrityError), store.engine.begin() as connection:
        write_regrades(connection, [again])
    assert flags(store) == expected and count(store, SubmissionRow) == 3
    with pytest.raises(ValueError, match="regrade_of"), store.engine.begin() as connection:
        write_regrades(connection, [{**row, "regrade_of": None}])


def explained(store: Store, statement: str, parameters: Any) -> str:
    """The plan of a statement the statistics ran, as one line."""
    with store.engine.connect() as connection:
        if store.dialect == "sqlite":
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters)
            return " | ".join(str(row[-1]) for row in rows)
        # The tables are tiny: without this, reading them whole is cheapest.
        for setting in ("enable_seqscan", "enable_bitmapscan"):
            connection.exec_driver_sql(f"SET {setting} = off")
        return " | ".join(
            r[0] for r in connection.exec_driver_sql(f"EXPLAIN {statement}", parameters)
        )


def test_the_statistics_keep_the_newest_gradings_through_their_indexes(store: Store) -> None:
    """Each Submit's newest grading is read off the indexes: the counts read them alone
    (no table row, no look-up of a newer row), the failures their partial indexes."""
    for n, track in enumerate(("numpy", "torch", "numpy")):
        saved = save(store, graded({"first": ("fail", "m"), "second": ("pass", "")}, track=track))
        with store.engine.begin() as connection:
            write_regrades(connection, [regrade_of(store, saved["id"], graded(track=track))])
        save(store, graded({"first": ("pass", "")}, track=track), learner=f"learner-{n}")
    if store.dialect == "postgresql":  # what autovacuum does: statistics, visibility map
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.exec_driver_sql("VACUUM ANALYZE submissions, submission_tests")
    ran: list[tuple[str, Any]] = []

    def note(*args: Any) -> None:
        ran.append((args[2], args[3]))  # the statement and its parameters

    tests = track_tests({"numpy": ["first", "second"], "torch": ["first", "second"]})
    event.listen(store.engine, "before_cursor_execute", note)
    try:
        for version in (None, "v1"):
            stats.exercise_report(store, GC, tests, version=version)
            stats.learner_counts(store, GC, version)
        stats.exercise_versions(store, GC)
        stats.overview_report(store, {GC: "v1"})
    finally:
        event.remove(store.engine, "before_cursor_execute", note)
    sqlite = store.dialect == "sqlite"
    covering = "COVERING INDEX {}" if sqlite else "Index Only Scan using {}"
    # The failures read rows (their messages, their blame): through an index whose search
    # keeps the newest gradings (which one, on tables this small, is the planner's pick).
    searched = "superseded=?" if sqlite else "(superseded = false)"
    read = [(statement, explained(store, statement, parameters)) for statement, parameters in ran]
    read = [(statement, plan) for statement, plan in read if "FROM submission" in statement]
    # Each report: counts, tests, blames, a track's failures twice; learners: 2 each;
    # versions: 1; the overview: per track, and per exercise (of two tracks).
    assert len(read) == 2 * 5 + 2 * 2 + 1 + 2
    for statement, plan in read:
        if "FROM submissions" in statement:
            wanted = covering.format("ix_submissions_statistics")
        elif "blame !=" in statement or "message" in statement:
            wanted = searched
        else:
            wanted = covering.format("ix_submission_tests_statistics")
        assert wanted in plan and "superseded" in statement, (statement, plan)
        assert "regrade_of" not in statement and "SUBQUERY" not in plan, (statement, plan)
