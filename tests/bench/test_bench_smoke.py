"""The benchmarks keep working: a smoke run of each, checking what they write (no timing
is asserted: speed belongs in bench/, with figures in docs/performance.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.runner import run_bench

pytestmark = pytest.mark.sandbox


def test_service_benchmark_smoke(tmp_path: Path) -> None:
    stdout = run_bench("service.py", tmp_path)
    report = json.loads((tmp_path / "service.json").read_text())
    assert report["smoke"] is True and report["workers"] >= 1 and report["pss_mib"] > 0
    tracks = {(r["exercise"], r["track"]) for r in report["tracks"]}
    assert tracks == {
        ("gradient-checkpointing", "numpy"),
        ("gradient-checkpointing", "torch"),
        ("checkpointing-layer-stack", "torch"),
    }
    for row in report["tracks"]:
        for kind in ("run", "submit", "c8", "c16"):
            assert row[kind]["failed"] == 0 and row[kind]["latency_ms"]["n"] > 0
        assert row["cold_ms"]["n"] == 1 and row["ratio_p50"] > 0
    assert (tmp_path / "service.png").stat().st_size > 10_000
    assert "start-up to ready" in stdout


@pytest.mark.sandbox  # a nats-server, drill serve twice and drill worker processes
def test_queue_benchmark_smoke(tmp_path: Path) -> None:
    """``--queue``: the embedded pool, then the distributed path (API node, NATS
    JetStream, drill worker), a few Submits each; the hops and the broker's CPU read."""
    stdout = run_bench("service.py", tmp_path, "--queue")
    report = json.loads((tmp_path / "queue.json").read_text())
    assert report["smoke"] is True and set(report["modes"]) == {"embedded", "distributed"}
    assert len(report["rounds"]) == 1
    for mode in report["modes"].values():
        rows = mode["tracks"]
        assert [(r["exercise"], r["track"]) for r in rows] == [
            ("gradient-checkpointing", "numpy"),
            ("gradient-checkpointing", "torch"),
            ("checkpointing-layer-stack", "torch"),
        ]
        for row in rows:
            assert row["submit"]["failed"] == 0 and row["submit"]["latency_ms"]["n"] == 3
            assert row["c16"]["failed"] == 0 and row["c16"]["shed"] == 0
            assert row["c16"]["latency_ms"]["n"] == 16
            assert row["cpu_ms_per_submission"]["api"] >= 0
    for row in report["modes"]["distributed"]["tracks"]:
        # Every Submit's hops came back from the API node (the first touch is dropped).
        assert row["hops_submit"]["n"] == 3 and row["hops_c16"]["n"] == 16
        assert row["hops_submit"]["worker"]["p50"] > 0
        assert "broker" in row["cpu_ms_per_submission"]
    assert len(report["targets"]) == 3
    assert (tmp_path / "queue.png").stat().st_size > 10_000
    assert "Distributed hops" in stdout


def test_fairness_benchmark_smoke(tmp_path: Path) -> None:
    """A learner's Submits alone and beside a client holding its allowance of slow ones,
    in both modes (the default share only: the row without it waits out wall limits)."""
    run_bench("fairness.py", tmp_path)
    report = json.loads((tmp_path / "fairness.json").read_text())
    assert [(r["mode"], r["setting"]) for r in report["rows"]] == [
        ("embedded", "share (default)"),
        ("distributed", "share (default)"),
    ]
    for row in report["rows"]:
        assert row["alone"]["n"] == row["hog"]["n"] == 2
        assert row["hog_requests"]["sent"] >= 8  # its whole allowance
