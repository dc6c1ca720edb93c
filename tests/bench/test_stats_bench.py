"""The statistics and rate-limit benchmarks keep working: smoke runs on a few hundred
rows and a few checks (no timing is asserted: the figures are in docs/performance.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.runner import run_script

pytestmark = pytest.mark.sandbox  # starts a PostgreSQL cluster


def test_stats_benchmark_smoke(tmp_path: Path) -> None:
    out = tmp_path / "stats.json"
    printed = run_script("stats.py", "--rows", "300", "--repeat", "2", "--json", str(out))
    report = json.loads(out.read_text())
    assert [r["backend"] for r in report] == ["postgresql", "sqlite"]
    for row in report:
        assert row["rows"] == 300 and row["exercise"] == "gradient-checkpointing"
        assert row["test_rows"] > 300 and 0 < row["exercise_submits"] < 300
        assert set(row["calls"]) == {
            "exercise_stats",
            "common_failures",
            "exercise_report",
            "overview",
        }
        assert all(call["p50_ms"] > 0 for call in row["calls"].values())
    # The same rows on both: the same statistics, so the same amount of work.
    assert report[0]["test_rows"] == report[1]["test_rows"]
    assert "exercise_report" in printed and "postgresql" in printed


def test_rate_limit_benchmark_smoke(tmp_path: Path) -> None:
    out = tmp_path / "rate.json"
    printed = run_script("rate_limit.py", "--checks", "20", "--clients", "3", "--json", str(out))
    report = json.loads(out.read_text())
    assert set(report) == {"postgresql", "memory"}
    assert all(row["checks"] == 20 and row["p50_ms"] > 0 for row in report.values())
    assert "postgresql" in printed
