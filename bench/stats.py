"""Instructor statistics at scale: the stats calls over 100,000 stored submissions.

Fills a fresh database with ``--rows`` submissions across the shipped exercises and
tracks (Runs and Submits, passes, failed tests with repeated and one-off messages, syntax
errors), written as the store writes them (app.tables.write_submissions, in batches).
Then it times the calls behind the instructor pages (app.stats) for the exercise with
the most rows: exercise_stats, common_failures, exercise_report, learner_counts,
exercise_versions and overview, the median of ``--repeat`` calls each after one warm-up
call. Then (unless ``--no-regrade``) it regrades every Submit of that exercise against a
new version, as a ``drill regrade`` after a fixed test stores them (a recorded run; one
new row per Submit with ``regrade_of`` naming the old one, written by
app.store.write_regrades, which marks the old rows superseded; a new verdict for each,
in batches), and times the same calls again, against the new current version. PostgreSQL
runs in a cluster of its own (tests.services.postgres_server); SQLite in a temporary
folder.

Usage: ``.venv/bin/python bench/stats.py [--rows 100000] [--repeat 20]
[--backend both|postgresql|sqlite] [--no-regrade] [--json FILE]``
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import random
import runpy
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, select, text, update  # noqa: E402

from app import stats  # noqa: E402
from app.store import Store, aware, write_regrades  # noqa: E402
from app.tables import RegradeRunRow, SubmissionRow, write_submissions  # noqa: E402
from graders.grading.catalog import load_catalog  # noqa: E402
from graders.sandbox import testing  # noqa: E402
from tests.services import postgres_server  # noqa: E402

BATCH = 2_000
LEARNERS = 2_000
SUBMIT_SHARE = 0.5  # the rest are Runs (examples only), which the statistics skip
SYNTAX_ERRORS = 0.05  # of all submissions: no tests, a failure of the whole run
ONE_OFF_MESSAGES = 0.3  # of failures: a message no other submission has (values differ)
CALLS = (
    "exercise_stats",
    "common_failures",
    "exercise_report",
    "learner_counts",
    "exercise_versions",
    "overview",
)
RUN = "bench-regrade-run"


def test_names(folder: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(example, hidden) tests of a track as (id, name), from its tests module's
    registrations."""
    testing.REGISTRY.clear()
    runpy.run_path(str(folder / "tests.py"))
    specs = list(testing.REGISTRY)
    testing.REGISTRY.clear()
    examples = [(s.id, s.name) for s in specs if s.example]
    return examples, [(s.id, s.name) for s in specs if not s.example]


@functools.cache
def tracks() -> tuple[dict[str, Any], ...]:
    """Every (exercise, track) shipped, with its test names and its reference solution."""
    found = []
    for exercise in load_catalog(ROOT / "exercises"):
        for name, track in exercise.tracks.items():
            examples, hidden = test_names(track.folder)
            found.append(
                {
                    "exercise": exercise.slug,
                    "version": exercise.version,
                    "track": name,
                    "examples": examples,
                    "hidden": hidden,
                    "code": track.solution,
                }
            )
    return tuple(found)


def verdict(
    track: dict[str, Any], mode: str, rng: random.Random, n: int
) -> tuple[str, str, list[dict[str, Any]]]:
    """A graded attempt at ``track`` (status, message, tests as a result lists them): a
    learner's skill decides how many tests fail; some runs end in a syntax error."""
    names = track["hidden"] if mode == "submit" else track["examples"]
    skill = rng.random()  # a learner's attempt: better ones fail fewer tests
    tests = []
    for i, (test_id, name) in enumerate(names):
        if rng.random() < (1 - skill) * (0.2 + 0.1 * i):
            kind = "error" if rng.random() < 0.2 else "fail"
            if rng.random() < ONE_OFF_MESSAGES:
                message = f"output: values differ — expected {rng.random():.6f}, got {n}"
            else:
                message = f"{name}: values differ (case {rng.randrange(4)})"
            failed = {"status": kind, "message": message, "output": ""}
            tests.append({"name": name, "id": test_id, **failed})
        else:
            passed = {"status": "pass", "message": "", "output": ""}
            tests.append({"name": name, "id": test_id, **passed})
    if rng.random() < SYNTAX_ERRORS:
        tests = []
        status = "error"
        message = f"SyntaxError at line {rng.randrange(1, 40)}, column {rng.randrange(1, 9)}"
    else:
        status = "pass" if all(t["status"] == "pass" for t in tests) else "fail"
        message = f"{sum(t['status'] == 'pass' for t in tests)}/{len(tests)} tests passed"
    return status, message, tests


def row_of(
    sub_id: str,
    learner: str,
    track: dict[str, Any],
    mode: str,
    version: str,
    created: datetime,
    graded: tuple[str, str, list[dict[str, Any]]],
    duration_ms: float,
) -> dict[str, Any]:
    """A ``submissions`` row (its result as the store shows it) of a graded attempt."""
    status, message, tests = graded
    passed = sum(t["status"] == "pass" for t in tests)
    result = {
        "id": sub_id,
        "version": 1,
        "exercise": track["exercise"],
        "track": track["track"],
        "mode": mode,
        "status": status,
        "message": message,
        "passed": passed,
        "total": len(tests),
        "duration_ms": duration_ms,
        "tests": [{**t, "duration_ms": 1.0, "hint": None} for t in tests],
        "created_at": created.isoformat(),
    }
    return {
        "id": sub_id,
        "learner": learner,
        "exercise": track["exercise"],
        "track": track["track"],
        "mode": mode,
        "exercise_version": version,
        "status": status,
        "passed": passed,
        "total": len(tests),
        "duration_ms": duration_ms,
        "created_at": created,
        "code": track["code"],
        "result": result,
    }


START = datetime(2025, 1, 1, tzinfo=UTC)
SPAN = timedelta(days=30)


def submissions(count: int, seed: int = 7) -> Iterator[dict[str, Any]]:
    """``count`` rows of the ``submissions`` table, oldest first, as the store writes them."""
    rng = random.Random(seed)
    choices = tracks()
    step = SPAN / count
    for n in range(count):
        track = choices[n % len(choices)]
        mode = "submit" if rng.random() < SUBMIT_SHARE else "run"
        graded = verdict(track, mode, rng, n)
        duration = rng.uniform(5, 60)  # drawn before the learner, as it always was
        learner = f"learner-{rng.randrange(LEARNERS):06d}"
        created = START + step * n
        yield row_of(f"{n:024x}", learner, track, mode, track["version"], created, graded, duration)


def fill(store: Store, count: int) -> float:
    """Write ``count`` submissions in batches; the seconds it took."""
    start = time.perf_counter()
    batch: list[dict[str, Any]] = []
    for row in submissions(count):
        batch.append(row)
        if len(batch) == BATCH:
            with store.engine.begin() as connection:
                write_submissions(connection, batch)
            batch = []
    if batch:
        with store.engine.begin() as connection:
            write_submissions(connection, batch)
    maintain(store)
    return time.perf_counter() - start


def maintain(store: Store) -> None:
    """What autovacuum (PostgreSQL) or an occasional ANALYZE (SQLite) does in service:
    the planner's statistics and, for PostgreSQL, the visibility map."""
    if store.dialect == "postgresql":
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
    else:
        with store.engine.begin() as c:
            c.execute(text("ANALYZE"))


def fixed_version(version: str) -> str:
    """The version a regrade grades against: the exercise after a fixed test."""
    return hashlib.sha256(f"{version} fixed".encode()).hexdigest()[: len(version)]


def regrade(store: Store, slug: str, after: int, seed: int = 11) -> tuple[int, float]:
    """Regrade every Submit of ``slug`` against its fixed version, as app.regrade stores a
    run (new rows ``regrade_of`` the old ones, through app.store.write_regrades, which
    marks the old ones superseded), in batches; new ids count on from ``after``. How many
    Submits were regraded, and the seconds it took."""
    start = time.perf_counter()
    rng = random.Random(seed)
    by_track = {t["track"]: t for t in tracks() if t["exercise"] == slug}
    version = fixed_version(next(iter(by_track.values()))["version"])
    sub = SubmissionRow
    query = (
        select(sub.id, sub.learner, sub.track, sub.exercise_version, sub.status, sub.created_at)
        .where(sub.exercise == slug, sub.mode == "submit")
        .order_by(sub.created_at, sub.id)
    )
    with store.engine.connect() as connection:
        old = connection.execute(query).all()
    stamp = START + SPAN
    run = {
        "id": RUN,
        "exercise": slug,
        "track": None,
        "since": None,
        "version": version,
        "started_at": stamp,
        "finished_at": None,
        "summary": None,
    }
    with store.engine.begin() as connection:
        connection.execute(insert(RegradeRunRow), run)
    store.note_version(slug, version)
    step = timedelta(hours=1) / max(1, len(old))
    batch: list[dict[str, Any]] = []
    for k, was in enumerate(old):
        track = by_track[was.track]
        created = stamp + step * k
        row = row_of(
            f"{after + k:024x}",
            was.learner,
            track,
            "submit",
            version,
            created,
            verdict(track, "submit", rng, after + k),
            rng.uniform(5, 60),
        )
        row["result"]["regrade"] = {
            "of": was.id,
            "run": RUN,
            "submitted_at": aware(was.created_at).isoformat(),
            "previous_status": was.status,
            "previous_version": was.exercise_version,
            "changed": [],
        }
        batch.append({**row, "regrade_of": was.id, "regrade_run": RUN})
        if len(batch) == BATCH:
            with store.engine.begin() as connection:
                write_regrades(connection, batch)
            batch = []
    if batch:
        with store.engine.begin() as connection:
            write_regrades(connection, batch)
    with store.engine.begin() as connection:
        connection.execute(
            update(RegradeRunRow).where(RegradeRunRow.id == RUN).values(finished_at=stamp)
        )
    maintain(store)
    return len(old), time.perf_counter() - start


def timed(call: Callable[[], object], repeat: int) -> dict[str, float]:
    call()  # warm-up: connections, caches, plans
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "p50_ms": statistics.median(times),
        "p90_ms": times[min(len(times) - 1, int(len(times) * 0.9))],
        "max_ms": times[-1],
    }


def timings(store: Store, slug: str, version: str, repeat: int) -> dict[str, dict[str, float]]:
    """Each call's timing for ``slug``, its pages asking for ``version`` (the dashboard
    asks for the exercise's current version by default)."""
    names = {
        t["track"]: t["hidden"] for t in tracks() if t["exercise"] == slug
    }  # what the routes pass: each track's hidden tests
    calls: dict[str, Callable[[], object]] = {
        "exercise_stats": lambda: stats.exercise_stats(store, slug, names, version),
        "common_failures": lambda: stats.common_failures(store, slug, names, version=version),
        "exercise_report": lambda: stats.exercise_report(store, slug, names, version=version),
        "learner_counts": lambda: stats.learner_counts(store, slug, version),
        "exercise_versions": lambda: stats.exercise_versions(store, slug),
        "overview": lambda: stats.overview(store),
    }
    return {name: timed(call, repeat) for name, call in calls.items()}


def count(store: Store, query: str, **params: Any) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(text(query), params).scalar() or 0)


SUBMITS = "SELECT count(*) FROM submissions WHERE exercise = :e AND mode = 'submit'"
TEST_ROWS = "SELECT count(*) FROM submission_tests"


def measure(url: str, backend: str, rows: int, repeat: int, regraded: bool) -> dict[str, Any]:
    store = Store(url)
    try:
        fill_s = fill(store, rows)
        with store.engine.connect() as connection:
            busiest: str = connection.execute(
                text(
                    "SELECT exercise FROM submissions GROUP BY exercise"
                    " ORDER BY count(*) DESC, exercise LIMIT 1"  # a tie: the same on both
                )
            ).scalar_one()
        version = next(t["version"] for t in tracks() if t["exercise"] == busiest)
        store.note_version(busiest, version)
        found: dict[str, Any] = {
            "backend": backend,
            "rows": rows,
            "test_rows": count(store, TEST_ROWS),
            "exercise": busiest,
            "exercise_submits": count(store, SUBMITS, e=busiest),
            "fill_s": fill_s,
            "calls": timings(store, busiest, version, repeat),
        }
        if regraded:
            print(f"{backend}: regrading {busiest} ...", file=sys.stderr, flush=True)
            submits, regrade_s = regrade(store, busiest, after=rows)
            found["regraded"] = {
                "submits": submits,
                "regrade_s": regrade_s,
                "rows": rows + submits,
                "test_rows": count(store, TEST_ROWS),
                "exercise_submits": count(store, SUBMITS, e=busiest),
                "calls": timings(store, busiest, fixed_version(version), repeat),
            }
        return found
    finally:
        store.close()


@contextlib.contextmanager
def database(backend: str) -> Iterator[str]:
    if backend == "postgresql":
        with postgres_server() as url:
            yield url
    else:
        with tempfile.TemporaryDirectory(prefix="drill-bench-") as folder:
            yield f"sqlite:///{folder}/drill.db"


def table(results: list[dict[str, Any]]) -> str:
    head = f"{'backend':22} {'rows':>8} {'write s':>7} " + " ".join(f"{c:>17}" for c in CALLS)
    lines = [head + "   (p50 ms)", "-" * len(head)]
    for r in results:
        cells = " ".join(f"{r['calls'][c]['p50_ms']:17.1f}" for c in CALLS)
        lines.append(f"{r['backend']:22} {r['rows']:8} {r['fill_s']:7.1f} {cells}")
        if "regraded" in r:
            again = r["regraded"]
            cells = " ".join(f"{again['calls'][c]['p50_ms']:17.1f}" for c in CALLS)
            name = f"{r['backend']}, regraded"
            lines.append(f"{name:22} {again['rows']:8} {again['regrade_s']:7.1f} {cells}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--backend", choices=("both", "postgresql", "sqlite"), default="both")
    parser.add_argument(
        "--no-regrade",
        dest="regrade",
        action="store_false",
        help="time the calls only before the exercise is regraded",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    backends = ["postgresql", "sqlite"] if args.backend == "both" else [args.backend]
    results = []
    for backend in backends:
        print(f"{backend}: filling {args.rows} submissions ...", file=sys.stderr, flush=True)
        with database(backend) as url:
            results.append(measure(url, backend, args.rows, args.repeat, args.regrade))
        last = results[-1]
        print(
            f"{backend}: {last['test_rows']} test rows; timing {last['exercise']} "
            f"({last['exercise_submits']} Submits)",
            file=sys.stderr,
            flush=True,
        )
    print(table(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
