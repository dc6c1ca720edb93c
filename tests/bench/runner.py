"""Running a benchmark script in smoke mode, as the bench smoke tests do."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from graders.settings import ROOT


def run_script(script: str, *args: str, timeout: float = 900) -> str:
    """Run ``bench/SCRIPT ARGS``; its standard output, once it has exited 0 (else the
    test fails with the end of what it printed)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    return done.stdout


def run_bench(script: str, out: Path, *args: str, timeout: float = 900) -> str:
    """Run ``bench/SCRIPT --smoke --out OUT ARGS`` (see run_script)."""
    return run_script(script, *args, "--smoke", "--out", str(out), timeout=timeout)
