"""The statistics and rate-limit benchmarks keep working: smoke runs on a few hundred
rows and a few checks (no timing is asserted: the figures are in docs/performance.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import stats
from app.schemas import ExerciseNumbers
from app.store import Store
from bench import stats as bench
from tests.bench.runner import run_script
from tests.catalog import shipped_slugs

pytestmark = pytest.mark.sandbox  # starts a PostgreSQL cluster
GC = "gradient-checkpointing"


def test_stats_benchmark_smoke(tmp_path: Path) -> None:
    out = tmp_path / "stats.json"
    printed = run_script("stats.py", "--rows", "300", "--repeat", "2", "--json", str(out))
    report = json.loads(out.read_text())
    assert [r["backend"] for r in report] == ["postgresql", "sqlite"]
    calls = {
        "exercise_stats",
        "common_failures",
        "exercise_report",
        "learner_counts",
        "exercise_versions",
        "overview",
    }
    for row in report:
        # The exercise with the most rows, whichever the catalog makes it (catalog data).
        assert row["rows"] == 300 and row["exercise"] in shipped_slugs()
        assert row["test_rows"] > 300 and 0 < row["exercise_submits"] < 300
        assert set(row["calls"]) == calls
        assert all(call["p50_ms"] > 0 for call in row["calls"].values())
        # Then every Submit of the exercise regraded: one new row each, timed again.
        regraded = row["regraded"]
        assert regraded["submits"] == row["exercise_submits"]
        assert regraded["rows"] == 300 + regraded["submits"]
        assert regraded["exercise_submits"] == 2 * row["exercise_submits"]
        assert regraded["test_rows"] > row["test_rows"]
        assert set(regraded["calls"]) == calls
        assert all(call["p50_ms"] > 0 for call in regraded["calls"].values())
    # The same rows on both: the same statistics, so the same amount of work.
    assert report[0]["exercise"] == report[1]["exercise"]
    assert report[0]["test_rows"] == report[1]["test_rows"]
    assert report[0]["regraded"]["test_rows"] == report[1]["regraded"]["test_rows"]
    assert "exercise_report" in printed and "postgresql, regraded" in printed


def test_the_stats_benchmark_regrades_as_the_store_does(tmp_path: Path) -> None:
    """The regraded figures are those of the statistics after a regrade as app.regrade
    stores one: each Submit counted once, by its new grading, against the new version."""
    store = Store(f"sqlite:///{tmp_path / 'drill.db'}")
    try:
        bench.fill(store, 300)
        names = {t["track"]: t["hidden"] for t in bench.tracks() if t["exercise"] == GC}
        old = next(t["version"] for t in bench.tracks() if t["exercise"] == GC)
        store.note_version(GC, old)
        submits = submissions(stats.exercise_stats(store, GC, names))
        assert bench.regrade(store, GC, after=300)[0] == submits
        new = bench.fixed_version(old)
        assert submissions(stats.exercise_stats(store, GC, names, new)) == submits
        assert submissions(stats.exercise_stats(store, GC, names)) == submits  # every version
        assert submissions(stats.exercise_stats(store, GC, names, old)) == 0
        versions = {
            v.version: (v.submissions, v.regraded) for v in stats.exercise_versions(store, GC)
        }
        assert versions == {old: (0, submits), new: (submits, 0)}
    finally:
        store.close()


def submissions(numbers: ExerciseNumbers) -> int:
    return sum(track.submissions for track in numbers.tracks.values())


def test_rate_limit_benchmark_smoke(tmp_path: Path) -> None:
    out = tmp_path / "rate.json"
    printed = run_script("rate_limit.py", "--checks", "20", "--clients", "3", "--json", str(out))
    report = json.loads(out.read_text())
    assert set(report) == {"postgresql", "memory"}
    assert all(row["checks"] == 20 and row["p50_ms"] > 0 for row in report.values())
    assert "postgresql" in printed
