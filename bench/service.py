"""The service over HTTP on loopback, against a fresh process per submission.

Not a test: it measures, prints a table, writes JSON and draws a plot. In one run on one
machine it measures

- the cold-start baseline: a fresh Python per submission that imports numpy and torch and
  runs the same six tests (``bench/grading.py``'s ``cold_run``);
- ``drill serve`` (default pool, bubblewrap): Run and Submit round trips per seed track,
  sequential and with 8 and 16 concurrent clients: p50 / p95 / p99 and throughput;
- server start-up to ready, and the PSS of the server plus its workers;
- the ratio cold-baseline p50 / served Submit p50 per track.

Usage: ``python bench/service.py [--smoke] [--out DIR]``. ``--smoke`` runs a few requests
of each kind (CI keeps the benchmark working with it; no timing is asserted anywhere).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.grading import TRACKS, cold_run, machine, summary  # noqa: E402
from graders.catalog import load_catalog  # noqa: E402
from graders.harness import wire  # noqa: E402
from graders.jobs import job_for  # noqa: E402
from graders.settings import Settings  # noqa: E402
from tests.serving import descendants, running_server  # noqa: E402


def pss_kb(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def submit(
    http: httpx.Client, base: str, slug: str, track: str, code: str, mode: str
) -> tuple[float, dict[str, Any], int]:
    started = time.perf_counter()
    answer = http.post(
        f"{base}/api/exercises/{slug}/submissions",
        json={"track": track, "code": code, "mode": mode},
    )
    elapsed = (time.perf_counter() - started) * 1000
    return elapsed, (answer.json() if answer.status_code == 200 else {}), answer.status_code


def sequential(base: str, slug: str, track: str, code: str, mode: str, n: int) -> dict[str, Any]:
    times, failed = [], 0
    with httpx.Client(timeout=60) as http:
        submit(http, base, slug, track, code, mode)  # first touch, not counted
        for _ in range(n):
            ms, result, status = submit(http, base, slug, track, code, mode)
            times.append(ms)
            failed += status != 200 or result.get("status") != "pass"
    return {"latency_ms": summary(times), "failed": failed, "samples": times}


def concurrent(
    base: str, slug: str, track: str, code: str, clients: int, per_client: int
) -> dict[str, Any]:
    times: list[float] = []
    failed = 0
    shed = 0
    lock = threading.Lock()

    def client() -> None:
        nonlocal failed, shed
        with httpx.Client(timeout=60) as http:
            for _ in range(per_client):
                ms, result, status = submit(http, base, slug, track, code, "submit")
                with lock:
                    if status in (429, 503):
                        shed += 1
                    else:
                        times.append(ms)
                        failed += status != 200 or result.get("status") != "pass"

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    return {
        "clients": clients,
        "latency_ms": summary(times),
        "throughput_per_s": round(len(times) / wall, 1),
        "failed": failed,
        "shed": shed,
        "samples": times,
    }


def hidden_tests(source: str) -> list[str]:
    """The hidden tests' names, by registering the tests module here (nothing runs)."""
    from graders import testing

    testing.REGISTRY.clear()
    exec(compile(source, "<tests>", "exec"), {"__name__": "bench_tests"})
    return [spec.name for spec in testing.REGISTRY if not spec.example]


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    labels, data = [], []
    for row in report["tracks"]:
        short = f"{row['exercise'].split('-')[0]}…[{row['track']}]"
        for key, title in (
            ("run", "Run"),
            ("submit", "Submit"),
            ("c8", "Submit ×8"),
            ("c16", "Submit ×16"),
        ):
            labels.append(f"{short}\n{title}")
            data.append(row[key]["samples"])
    left.boxplot(data, showfliers=True, whis=(5, 95))
    left.set_xticks(range(1, len(labels) + 1), labels, rotation=90, fontsize=7)
    left.set_yscale("log")
    left.set_ylabel("round trip over HTTP (ms, log scale)")
    left.set_title("Latency (box: quartiles; whiskers: p5–p95)")
    for row in report["tracks"]:
        xs = [1, 8, 16]
        ys = [
            1000 / row["submit"]["latency_ms"]["mean"],
            row["c8"]["throughput_per_s"],
            row["c16"]["throughput_per_s"],
        ]
        right.plot(xs, ys, marker="o", label=f"{row['exercise']} [{row['track']}]")
    right.set_xlabel("concurrent clients")
    right.set_ylabel("graded submissions per second")
    right.set_title(f"Throughput ({report['machine']['cores']} cores, {report['workers']} workers)")
    right.set_xticks([1, 8, 16])
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a few requests of each kind")
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench")
    args = parser.parse_args()
    n, per_client, cold_n = (3, 2, 1) if args.smoke else (200, 25, 8)
    args.out.mkdir(parents=True, exist_ok=True)

    catalog = load_catalog(ROOT / "exercises")
    env = {"DRILL_RATE_PER_MINUTE": "100000", "DRILL_RATE_BURST": "10000"}
    var = Path(tempfile.mkdtemp(prefix="drill-bench-"))
    started = time.perf_counter()
    with running_server(var, **env) as server:
        startup = time.perf_counter() - started
        base = server.base
        workers = httpx.get(f"{base}/healthz", timeout=10).json()["workers"]
        rows = []
        for slug, track in TRACKS:
            code = catalog.get(slug).track(track).solution
            httpx.get(f"{base}/api/exercises/{slug}", timeout=120)  # references ready
            row: dict[str, Any] = {"exercise": slug, "track": track}
            row["run"] = sequential(base, slug, track, code, "run", n)
            row["submit"] = sequential(base, slug, track, code, "submit", n)
            row["c8"] = concurrent(base, slug, track, code, 8, per_client)
            row["c16"] = concurrent(base, slug, track, code, 16, per_client)
            rows.append(row)
        # Memory after the reference pool has gone idle and closed (60 s), unless smoke.
        pss_with_reference = pss_kb([server.proc.pid, *descendants(server.proc.pid)])
        if not args.smoke:
            time.sleep(65)
        pss = pss_kb([server.proc.pid, *descendants(server.proc.pid)])

    limits = Settings().model_copy()
    for row in rows:
        exercise = catalog.get(row["exercise"])
        job = job_for(
            exercise,
            row["track"],
            exercise.track(row["track"]).solution,
            hidden_tests(exercise.track(row["track"]).tests),
            _limits(limits),
        )
        cold = [cold_run(wire.pack(job.header, job.body))[0] for _ in range(cold_n)]
        row["cold_ms"] = summary(cold)
        row["ratio_p50"] = round(statistics.median(cold) / row["submit"]["latency_ms"]["p50"], 1)

    report = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": machine(),
        "workers": workers,
        "startup_s": round(startup, 2),
        "pss_mib": round(pss / 1024, 1),
        "pss_with_reference_pool_mib": round(pss_with_reference / 1024, 1),
        "smoke": args.smoke,
        "tracks": rows,
    }
    print(
        f"{machine()}; {workers} workers; start-up to ready {startup:.1f} s; "
        f"PSS {pss / 1024:.0f} MiB ({pss_with_reference / 1024:.0f} MiB with the reference pool)"
    )
    head = (
        f"{'track':36} {'run p50':>8} {'sub p50':>8} {'sub p95':>8} {'sub p99':>8} "
        f"{'x8 p50':>7} {'x8 /s':>6} {'x16 p50':>7} {'x16 p99':>7} {'x16 /s':>6} "
        f"{'cold p50':>9} {'ratio':>6} {'fail':>4}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        fails = r["run"]["failed"] + r["submit"]["failed"] + r["c8"]["failed"] + r["c16"]["failed"]
        print(
            f"{r['exercise'] + ' [' + r['track'] + ']':36} {r['run']['latency_ms']['p50']:8.1f} "
            f"{r['submit']['latency_ms']['p50']:8.1f} {r['submit']['latency_ms']['p95']:8.1f} "
            f"{r['submit']['latency_ms']['p99']:8.1f} {r['c8']['latency_ms']['p50']:7.1f} "
            f"{r['c8']['throughput_per_s']:6.1f} {r['c16']['latency_ms']['p50']:7.1f} "
            f"{r['c16']['latency_ms']['p99']:7.1f} {r['c16']['throughput_per_s']:6.1f} "
            f"{r['cold_ms']['p50']:9.1f} {r['ratio_p50']:6.1f} {fails:4d}"
        )
    (args.out / "service.json").write_text(json.dumps(report, indent=1) + "\n")
    plot(report, args.out / "service.png")
    print(f"wrote {args.out / 'service.json'} and {args.out / 'service.png'}")
    ok = all(r[k]["failed"] == 0 for r in rows for k in ("run", "submit", "c8", "c16"))
    return 0 if ok else 1


def _limits(settings: Settings):  # type: ignore[no-untyped-def]
    from graders.sandbox import JobLimits

    return JobLimits(
        settings.cpu_seconds,
        settings.wall_seconds,
        settings.memory_mb * 2**20,
        settings.output_bytes,
        settings.result_mb * 2**20,
        settings.processes,
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
