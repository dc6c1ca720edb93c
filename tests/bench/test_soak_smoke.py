"""The soak benchmark keeps working: a smoke run of ``bench/soak.py``, checking what it
writes. No timing or memory-growth threshold is asserted: the figures of a full run are
read by people (docs/security.md); a test only proves that the soak runs, samples what
it says it samples, and that every verdict it saw was right."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.runner import run_bench

pytestmark = pytest.mark.sandbox


def test_soak_smoke(tmp_path: Path) -> None:
    stdout = run_bench("soak.py", tmp_path, timeout=600)
    report = json.loads((tmp_path / "soak.json").read_text())
    settings = report["settings"]
    assert settings["smoke"] is True and settings["clients"] == 4
    assert not report["interrupted"] and not report["server_died"]
    assert report["client_errors"] == []

    # Every kind was submitted, and every verdict was the right one.
    assert report["wrong_verdict_count"] == 0, report["wrong_verdicts"]
    assert report["wrong_verdicts"] == []
    for kind in ("correct", "wrong", "hostile"):
        tally = report["verdicts"][kind]
        assert tally.get("submitted", 0) >= 1, (kind, tally)
        assert tally.get("right") == tally["submitted"], (kind, tally)
    assert report["submissions"] == sum(v["submitted"] for v in report["verdicts"].values())
    assert report["rate_limited"] == 0

    # The samples: the server's and its workers' figures, and the cgroup counts when the
    # server runs with cgroups.
    samples = report["samples"]
    assert len(samples) >= 3
    assert [s["t"] for s in samples] == sorted(s["t"] for s in samples)
    assert samples[-1]["submissions"] == report["submissions"]
    cgroups = report["server"]["cgroups"]
    assert cgroups in ("v1", "v2", "none")
    for sample in samples:
        assert sample["server_alive"], sample
        assert sample["server"]["pss_mib"] > 0 and sample["workers"]["pss_mib"] > 0, sample
        assert sample["server"]["fds"] > 0 and sample["server"]["threads"] > 0, sample
        # At least bubblewrap and the warm worker of each learner worker.
        learner = sample["workers"]["roles"]["learner"]
        assert learner["count"] >= 2 and learner["fds"] > 0 and learner["threads"] > 0, sample
        if cgroups == "none":
            assert sample["cgroups"] is None, sample
        else:
            counts = sample["cgroups"]
            assert counts is not None, sample
            assert counts["workers"] >= 1 and counts["processes"] >= 1, sample
            assert counts["tasks"] >= counts["processes"], sample

    summary = report["summary"]
    assert summary["warm_up_sample"] == 1 and summary["samples_after_warm_up"] == len(samples) - 1
    for row in summary["pss"].values():
        assert row["after_warm_up_mib"] > 0 and row["slope_mib_per_min"] is not None, row
    assert (tmp_path / "soak.png").stat().st_size > 20_000
    assert "PSS after warm-up" in stdout
