"""The benchmarks keep working: a smoke run of each, checking what they write (no timing
is asserted: speed belongs in bench/, with figures in docs/performance.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from graders.settings import ROOT

pytestmark = pytest.mark.sandbox


def test_service_benchmark_smoke(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "service.py"), "--smoke", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
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
    assert "start-up to ready" in done.stdout
