"""Server-side grading time per seed track, against a fresh process per submission.

Not a test: it measures, prints a table and writes JSON. Both sides run the same six
hidden tests of each track on its reference solution, on this machine, in one run:

- cold: a fresh Python per submission that imports numpy and torch, loads the tests and
  the submission and runs them (what a grader pays that starts a process per job, before
  any container overhead);
- warm: ``Grader.grade`` on the warm bubblewrap pool (sandboxed, forked child per job),
  including the server-side comparison with the cached reference.

Usage: ``python bench/grading.py [--runs N] [--cold-runs N] [--json PATH]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graders.grading.grader import Grader  # noqa: E402
from graders.grading.jobs import job_for  # noqa: E402
from graders.sandbox import wire  # noqa: E402
from graders.settings import Settings  # noqa: E402

TRACKS = [
    ("gradient-checkpointing", "numpy"),
    ("gradient-checkpointing", "torch"),
    ("checkpointing-layer-stack", "torch"),
]

# A per-submission process: import the libraries, run the job, exit.
COLD = """
import os, sys
sys.path.insert(0, sys.argv[1])
import numpy, torch
from graders.sandbox import wire
from graders.sandbox.runner import Job
frame = wire.read_frame(sys.stdin.buffer.read, 1 << 26)
Job(frame.header, os.dup(1), frame.body).run()  # fd 1 itself becomes the output capture
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 95), 2),
        "p99": round(percentile(values, 99), 2),
        "mean": round(statistics.fmean(values), 2),
        "n": len(values),
    }


def cold_run(job: bytes) -> tuple[float, bool]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-I", "-c", COLD, str(ROOT)],
        input=job,
        capture_output=True,
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    elapsed = (time.perf_counter() - started) * 1000
    frames, _ = wire.split_frames(done.stdout, 1 << 26)
    ok = any(f.header.get("type") == "done" for f in frames)
    return elapsed, ok


def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": str(os.cpu_count()),
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60, help="warm submissions per track")
    parser.add_argument("--cold-runs", type=int, default=8, help="fresh processes per track")
    parser.add_argument("--json", type=Path, default=ROOT / "var" / "bench" / "grading.json")
    parser.add_argument("--sandbox", default="bwrap", choices=("bwrap", "process", "auto"))
    args = parser.parse_args()

    settings = Settings(sandbox=args.sandbox, var_dir=ROOT / "var" / "bench-var")
    started = time.perf_counter()
    rows = []
    with Grader(settings) as grader:
        startup = time.perf_counter() - started
        assert grader.status is not None
        for slug, track in TRACKS:
            exercise = grader.catalog.get(slug)
            code = exercise.track(track).solution
            reference = grader.reference(exercise, track)
            names = reference.ids(example=False)
            limits = grader.local.limits(exercise)
            job = job_for(exercise, track, code, names, limits)
            frame = wire.pack(job.header, job.body)

            cold, cold_ok = [], True
            for _ in range(args.cold_runs):
                ms, ok = cold_run(frame)
                cold.append(ms)
                cold_ok = cold_ok and ok

            grader.grade(
                grader.catalog.get(slug), track, code, "submit"
            )  # first touch, not counted
            warm, tests_only, passed = [], [], True
            for _ in range(args.runs):
                t0 = time.perf_counter()
                result = grader.grade(grader.catalog.get(slug), track, code, "submit")
                warm.append((time.perf_counter() - t0) * 1000)
                tests_only.append(sum(t.duration_ms for t in result.tests))
                passed = passed and result.status == "pass" and result.total == 6
            rows.append(
                {
                    "exercise": slug,
                    "track": track,
                    "cold_ms": summary(cold),
                    "cold_ok": cold_ok,
                    "warm_ms": summary(warm),
                    "warm_all_passed": passed,
                    "tests_only_ms": summary(tests_only),
                    "speedup_p50": round(statistics.median(cold) / statistics.median(warm), 1),
                }
            )
        backend = grader.status.sandbox

    print(f"sandbox: {backend}; pool start-up {startup:.1f} s; {machine()}")
    header = (
        f"{'track':38} {'cold p50':>9} {'warm p50':>9} {'warm p95':>9} {'warm p99':>9} "
        f"{'tests':>7} {'speed-up':>8}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        name = f"{r['exercise']} [{r['track']}]"
        print(
            f"{name:38} {r['cold_ms']['p50']:8.1f}ms {r['warm_ms']['p50']:7.1f}ms "
            f"{r['warm_ms']['p95']:7.1f}ms {r['warm_ms']['p99']:7.1f}ms "
            f"{r['tests_only_ms']['p50']:5.1f}ms {r['speedup_p50']:7.1f}x"
        )
    report = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": machine(),
        "sandbox": backend,
        "startup_s": round(startup, 2),
        "tracks": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.json}")
    ok = all(r["cold_ok"] and r["warm_all_passed"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
