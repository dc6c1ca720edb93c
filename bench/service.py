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

``python bench/service.py --queue [--smoke] [--out DIR] [--layout 2x1|1x2]`` compares, in
one run and one mode after the other, the embedded pool (``drill serve``, two workers in
the server's own pool) with the distributed path on the same cores: an API node with
``DRILL_QUEUE`` and a real nats-server (JetStream), and two ``drill worker --role learner``
processes of one slot each (``--layout 1x2``: one process with two slots). Both modes keep
their submissions in SQLite. Per mode and seed track: Submit at 1 client (p50, p95) and at
16 concurrent clients (throughput, p99), the CPU each process spends per submission at 16
clients (the broker's included) and, in the distributed mode, where each job's time went
(``graders.queue.remote.Hops``: publish, to start, worker, back). It writes ``queue.json`` and
``queue.png``. ``--rounds N`` (default 3) measures embedded then distributed N times
over, to see how far two runs on the same machine differ.

The distributed API node is ``drill serve`` itself, in its own process as in production
and as the embedded server is, started through this file (``--api-node``) only to add one
route, ``GET /_bench/hops``, that hands over and clears the hops the RemoteBackend kept.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.grading import TRACKS, cold_run, machine, summary  # noqa: E402
from graders.grading.catalog import load_catalog  # noqa: E402
from graders.grading.jobs import job_for  # noqa: E402
from graders.sandbox import wire  # noqa: E402
from graders.settings import Settings  # noqa: E402
from tests.cluster import Cluster, Node  # noqa: E402
from tests.services import free_port, running_nats  # noqa: E402
from tests.serving import descendants, running_server  # noqa: E402

if TYPE_CHECKING:
    from fastapi import FastAPI

    from app.settings import AppSettings
    from graders.grading.backend import GradingBackend


# No rate limit in the way; the benchmark is the proxy of its clients, each with its own
# address and so its own fair share of the workers (app/admission.py), as real learners.
RATE_ENV = {
    "DRILL_RATE_PER_MINUTE": "100000",
    "DRILL_RATE_BURST": "10000",
    "DRILL_TRUSTED_PROXIES": "127.0.0.1",
}


def client_address(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"10.0.{n // 250}.{n % 250 + 1}"}


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

    def client(n: int) -> None:
        nonlocal failed, shed
        with httpx.Client(timeout=60, headers=client_address(n)) as http:
            for _ in range(per_client):
                ms, result, status = submit(http, base, slug, track, code, "submit")
                with lock:
                    if status in (429, 503):
                        shed += 1
                    else:
                        times.append(ms)
                        failed += status != 200 or result.get("status") != "pass"

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
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
    """The hidden tests' ids, by registering the tests module here (nothing runs)."""
    from graders.sandbox import testing

    testing.REGISTRY.clear()
    exec(compile(source, "<tests>", "exec"), {"__name__": "bench_tests"})
    return [spec.id for spec in testing.REGISTRY if not spec.example]


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
    parser.add_argument(
        "--queue",
        action="store_true",
        help="embedded pool against the distributed path (NATS JetStream and drill worker)",
    )
    parser.add_argument(
        "--layout",
        choices=("2x1", "1x2"),
        default="2x1",
        help="--queue: two learner workers of one slot each, or one of two slots",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="--queue: rounds of embedded then distributed (--smoke: 1)",
    )
    parser.add_argument("--api-node", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.api_node:
        return api_node(args.port)
    if args.queue:
        return queue_main(args)
    return service_main(args)


def service_main(args: argparse.Namespace) -> int:
    n, per_client, cold_n = (3, 1, 1) if args.smoke else (200, 25, 8)
    args.out.mkdir(parents=True, exist_ok=True)

    catalog = load_catalog(ROOT / "exercises")
    env = {**RATE_ENV}
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


# --- the embedded pool against the distributed path (--queue) ---

CLOCK_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
HOP_NAMES = ("publish", "to_start", "worker", "back")
CLIENTS = 16
# A phase is left out of the summary when something outside the benchmark took more CPU
# than this per submission (another test suite on the machine, say).
DISTURBED_MS = 5.0
MODES = ("embedded", "distributed")


def api_node(port: int) -> int:
    """``drill serve`` (its code path, settings and uvicorn options) plus one route,
    ``GET /_bench/hops``, that hands over and clears the hops the RemoteBackend kept.
    ``app.main.create_app`` is wrapped here before ``drill serve`` (drill/commands/serve.py)
    calls it."""
    from dataclasses import asdict

    import app.main as app_main
    from drill.cli import main as drill_main

    build = app_main.create_app

    def create_app_with_hops(
        settings: AppSettings | None = None, backend: GradingBackend | None = None
    ) -> FastAPI:
        application = build(settings, backend)

        @application.get("/_bench/hops", include_in_schema=False)
        def hops() -> list[dict[str, float]]:
            kept = application.state.service.grader.backend.hops
            taken = []
            while True:
                try:
                    taken.append(asdict(kept.popleft()))
                except IndexError:
                    return taken

        return application

    app_main.create_app = create_app_with_hops
    return drill_main(["serve", "--host", "127.0.0.1", "--port", str(port)])


def _stat(pid: int) -> list[int]:
    """utime, stime, cutime, cstime of a process, in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return [int(x) for x in fields[11:15]]


def own_ticks(pid: int) -> int:
    """What one process spent itself (all its threads)."""
    try:
        return sum(_stat(pid)[:2])
    except OSError:
        return 0


def main_thread_ticks(pid: int) -> int:
    """What a process's main thread spent (the event loop, in the API and the workers)."""
    try:
        fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


def tree_ticks(pid: int) -> int:
    """What a process and everything under it spent: each live process's own time and
    its reaped children's (cutime, cstime), so each tick is counted once per reading."""
    total = 0
    for each in [pid, *descendants(pid)]:
        with contextlib.suppress(OSError):
            total += sum(_stat(each))
    return total


def machine_ticks() -> tuple[int, int]:
    """Busy ticks of the whole machine (all but idle and iowait), and those of them the
    hypervisor gave to someone else (steal)."""
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return sum(values[:8]) - values[3] - values[4], values[7]


@dataclass
class Target:
    """One mode under measurement: where to send requests, whose CPU to read."""

    mode: str
    base: str
    api: int  # the process that answers HTTP
    grading: list[int]  # the processes (and their trees) that run the jobs
    broker: int | None = None
    hops: bool = False

    def cpu_ms(self) -> dict[str, float]:
        api = own_ticks(self.api)
        own = sum(own_ticks(pid) for pid in self.grading if pid != self.api)
        loops = sum(main_thread_ticks(pid) for pid in self.grading if pid != self.api)
        trees = sum(tree_ticks(pid) for pid in self.grading)
        if self.api in self.grading:
            trees -= api
        usage = resource.getrusage(resource.RUSAGE_SELF)
        busy, steal = machine_ticks()
        return {
            "api": api * CLOCK_TICK_MS,
            "api_main_thread": main_thread_ticks(self.api) * CLOCK_TICK_MS,
            "worker_processes": own * CLOCK_TICK_MS,
            "worker_main_threads": loops * CLOCK_TICK_MS,
            "sandbox_pools": (trees - own) * CLOCK_TICK_MS,
            "broker": own_ticks(self.broker) * CLOCK_TICK_MS if self.broker else 0.0,
            "clients": (usage.ru_utime + usage.ru_stime) * 1000,
            "machine": busy * CLOCK_TICK_MS,
            "steal": steal * CLOCK_TICK_MS,
        }

    def pool_memory_mib(self) -> dict[str, float]:
        """PSS of the sandbox pools (every process under the grading processes) and how
        much of their anonymous memory sits in 2 MiB pages (the warm workers collapse
        their heap into huge pages: forks are cheaper with them)."""
        pids = [child for pid in self.grading for child in descendants(pid)]
        found = {"pss": 0.0, "anon_huge_pages": 0.0}
        for pid in pids:
            with contextlib.suppress(OSError):
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                    if line.startswith("Pss:"):
                        found["pss"] += int(line.split()[1]) / 1024
                    elif line.startswith("AnonHugePages:"):
                        found["anon_huge_pages"] += int(line.split()[1]) / 1024
        return {k: round(v, 1) for k, v in found.items()}

    def take_hops(self) -> list[dict[str, float]]:
        if not self.hops:
            return []
        answer = httpx.get(f"{self.base}/_bench/hops", timeout=10)
        answer.raise_for_status()
        return list(answer.json())


def hop_summary(hops: list[dict[str, float]]) -> dict[str, Any]:
    if not hops:
        return {"n": 0}
    found: dict[str, Any] = {name: summary([h[name] for h in hops]) for name in HOP_NAMES}
    found["queue"] = summary([h["publish"] + h["to_start"] + h["back"] for h in hops])
    if all("outside" in h for h in hops):
        found["outside"] = summary([h["outside"] for h in hops])
    found["n"] = len(hops)
    return found


def measure(target: Target, catalog: Any, n: int, per_client: int) -> list[dict[str, Any]]:
    """Per seed track: Submit at 1 client, then at 16; CPU and hops around each phase."""
    rows = []
    for slug, track in TRACKS:
        code = catalog.get(slug).track(track).solution
        row: dict[str, Any] = {"exercise": slug, "track": track}
        target.take_hops()  # whatever came before
        before = target.cpu_ms()
        row["submit"] = sequential(target.base, slug, track, code, "submit", n)
        row["cpu_ms_per_submission_1"] = per_submission(before, target.cpu_ms(), n + 1)
        hops = target.take_hops()[1:]  # the first touch is not counted
        if len(hops) == len(row["submit"]["samples"]):
            # One client, in order: what each round trip spent outside the four hops
            # (HTTP, the job built and the verdict made by the API, the commit).
            for ms, h in zip(row["submit"]["samples"], hops, strict=True):
                h["outside"] = ms - sum(h[name] for name in HOP_NAMES)
        row["hops_submit_raw"] = hops
        before = target.cpu_ms()
        row["c16"] = concurrent(target.base, slug, track, code, CLIENTS, per_client)
        after = target.cpu_ms()
        graded = row["c16"]["latency_ms"]["n"]
        row["cpu_ms_per_submission"] = per_submission(before, after, graded)
        row["hops_c16_raw"] = target.take_hops()
        row["disturbed"] = any(
            row[key]["other"] > DISTURBED_MS
            for key in ("cpu_ms_per_submission_1", "cpu_ms_per_submission")
        )
        rows.append(row)
    return rows


def per_submission(before: dict[str, float], after: dict[str, float], n: int) -> dict[str, float]:
    """CPU per submission between two readings; ``other`` is what no process of the mode
    nor the benchmark's clients spent: something else on the machine, if above a ms."""
    found = {key: (after[key] - before[key]) / max(1, n) for key in before}
    found["other"] = found["machine"] - sum(
        found[key] for key in ("api", "worker_processes", "sandbox_pools", "broker", "clients")
    )
    return {key: round(value, 2) for key, value in found.items()}


def merge_rounds(rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One mode's rows over the rounds: latency percentiles of all the samples pooled,
    throughput and CPU the median of the rounds' (each round's figures kept as lists)."""
    merged = []
    for i, (slug, track) in enumerate(TRACKS):
        rows = [r[i] for r in rounds if not r[i]["disturbed"]] or [r[i] for r in rounds]
        pooled = [round(x, 2) for r in rows for x in r["submit"]["samples"]]
        pooled16 = [round(x, 2) for r in rows for x in r["c16"]["samples"]]
        rates = [r["c16"]["throughput_per_s"] for r in rows]
        cpu_keys = rows[0]["cpu_ms_per_submission"]
        merged.append(
            {
                "exercise": slug,
                "track": track,
                "rounds_used": [k + 1 for k, r in enumerate(rounds) if r[i] in rows],
                "submit": {
                    "latency_ms": summary(pooled),
                    "failed": sum(r["submit"]["failed"] for r in rows),
                    "p50_per_round": [r["submit"]["latency_ms"]["p50"] for r in rows],
                    "samples": pooled,
                },
                "c16": {
                    "clients": CLIENTS,
                    "latency_ms": summary(pooled16),
                    "throughput_per_s": round(statistics.median(rates), 1),
                    "throughput_per_round": rates,
                    "p99_per_round": [r["c16"]["latency_ms"]["p99"] for r in rows],
                    "failed": sum(r["c16"]["failed"] for r in rows),
                    "shed": sum(r["c16"]["shed"] for r in rows),
                    "samples": pooled16,
                },
                "cpu_ms_per_submission": {
                    key: round(statistics.median(r["cpu_ms_per_submission"][key] for r in rows), 2)
                    for key in cpu_keys
                },
                "cpu_ms_per_submission_per_round": [r["cpu_ms_per_submission"] for r in rows],
                "hops_submit": hop_summary([h for r in rows for h in r["hops_submit_raw"]]),
                "hops_c16": hop_summary([h for r in rows for h in r["hops_c16_raw"]]),
            }
        )
    return merged


def warm(base: str, catalog: Any) -> None:
    """Every reference computed (the API node keeps them in memory afterwards)."""
    for exercise in catalog:
        httpx.get(f"{base}/api/exercises/{exercise.slug}", timeout=300).raise_for_status()


def reference_pool_pids(root: int) -> list[int]:
    found = []
    for pid in descendants(root):
        with contextlib.suppress(OSError):
            if b"reference" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"):
                found.append(pid)
    return found


def wait_reference_pool_closed(root: int, timeout: float = 120) -> float:
    """Seconds until the embedded server's reference pool has closed (it does after 60 s
    idle): the distributed mode stops its reference worker, and a pool that exits during
    a phase would take its whole life's CPU out of the readings."""
    started = time.monotonic()
    while reference_pool_pids(root) and time.monotonic() - started < timeout:
        time.sleep(1)
    return round(time.monotonic() - started, 1)


def embedded_mode(
    var: Path, catalog: Any, n: int, per_client: int, wait_reference: bool = True
) -> dict[str, Any]:
    started = time.perf_counter()
    with running_server(
        var / "embedded",
        DRILL_WORKERS="2",
        **RATE_ENV,
    ) as server:
        startup = time.perf_counter() - started
        health = httpx.get(f"{server.base}/healthz", timeout=10).json()
        warm(server.base, catalog)
        waited = wait_reference_pool_closed(server.proc.pid) if wait_reference else 0.0
        target = Target("embedded", server.base, server.proc.pid, [server.proc.pid])
        memory = target.pool_memory_mib()
        rows = measure(target, catalog, n, per_client)
    return {
        "mode": "embedded",
        "layout": (
            f"drill serve, one pool of {health['workers']} workers in-process; its reference "
            "pool closed (idle) before the measurements"
        ),
        "startup_s": round(startup, 2),
        "reference_pool_closed_after_s": waited,
        "pool_memory_mib": memory,
        "tracks": rows,
    }


def start_api_node(cluster: Cluster, name: str, **extra: str) -> Node:
    """An API node of the cluster (its environment from ``Cluster.api_env``), run as
    ``drill serve`` with the hops route (``--api-node``)."""
    port = free_port()
    log = cluster.folder / f"{name}.log"
    inherited = {
        k: v for k, v in os.environ.items() if not k.startswith("DRILL_") or k == "DRILL_BWRAP"
    }
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--api-node", "--port", str(port)],
            cwd=ROOT,
            env={**inherited, **cluster.api_env(name, **extra)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    node = Node(name, proc, log, base=f"http://127.0.0.1:{port}")
    cluster.nodes.append(node)
    deadline = time.monotonic() + 120
    while True:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            if httpx.get(f"{node.base}/healthz", timeout=2).json().get("status") == "ok":
                return node
        if not node.alive() or time.monotonic() > deadline:
            raise RuntimeError(f"API node {name} did not start:\n{node.text()[-3000:]}")
        time.sleep(0.2)


def distributed_mode(
    var: Path, catalog: Any, n: int, per_client: int, layout: str
) -> dict[str, Any]:
    started = time.perf_counter()
    with running_nats() as broker:
        assert broker.proc is not None
        folder = var / "distributed"
        folder.mkdir(parents=True)
        cluster = Cluster(broker.url, f"sqlite:///{folder / 'drill.db'}", folder=folder)
        try:
            slots = "1" if layout == "2x1" else "2"
            names = ["w1", "w2"] if layout == "2x1" else ["w1"]
            with ThreadPoolExecutor(len(names) + 1) as starting:
                reference = starting.submit(cluster.start_worker, "ref", "reference")
                learning = [
                    starting.submit(cluster.start_worker, name, "learner", DRILL_WORKERS=slots)
                    for name in names
                ]
                learners = [f.result() for f in learning]
                reference_node = reference.result()
            api = start_api_node(cluster, "api", **RATE_ENV)
            startup = time.perf_counter() - started
            warm(api.base, catalog)
            # References are computed and held by the API node: the reference worker is
            # stopped, so the learner workers have the two cores as the embedded pool had.
            reference_node.stop()
            target = Target(
                "distributed",
                api.base,
                api.proc.pid,
                [w.proc.pid for w in learners],
                broker=broker.proc.pid,
                hops=True,
            )
            memory = target.pool_memory_mib()
            rows = measure(target, catalog, n, per_client)
        except BaseException:
            print(cluster.logs(), file=sys.stderr)
            raise
        finally:
            cluster.close()
    return {
        "mode": "distributed",
        "layout": (
            f"API node (drill serve, DRILL_QUEUE) + nats-server + {len(names)} drill worker "
            f"process(es) of {slots} slot(s); the reference worker stopped after warm-up"
        ),
        "startup_s": round(startup, 2),
        "pool_memory_mib": memory,
        "tracks": rows,
    }


def comparison(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Per track, the two targets of the issue: the queue adds at most 3 ms to Submit's
    p50 at 1 client; at 16 clients, distributed throughput within 10% of embedded. Judged
    on the median over the rounds of each round's difference and ratio (a round measures
    both modes back to back; a round either of whose phases was disturbed is left out);
    each round's figures are kept, and the difference of the pooled p50s too."""
    found = []
    embedded = report["modes"]["embedded"]["tracks"]
    distributed = report["modes"]["distributed"]["tracks"]
    for i, (e, d) in enumerate(zip(embedded, distributed, strict=True)):
        added = d["submit"]["latency_ms"]["p50"] - e["submit"]["latency_ms"]["p50"]
        pairs = [
            (r["embedded"]["tracks"][i], r["distributed"]["tracks"][i]) for r in report["rounds"]
        ]
        clean = [(a, b) for a, b in pairs if not (a["disturbed"] or b["disturbed"])] or pairs
        per_round = [
            (
                b["submit"]["latency_ms"]["p50"] - a["submit"]["latency_ms"]["p50"],
                b["c16"]["throughput_per_s"] / max(a["c16"]["throughput_per_s"], 1e-9),
            )
            for a, b in clean
        ]
        added_pooled = added
        added = statistics.median(x[0] for x in per_round)
        ratio = statistics.median(x[1] for x in per_round)
        found.append(
            {
                "exercise": e["exercise"],
                "track": e["track"],
                "p50_added_ms": round(added, 2),
                "p50_added_pooled_ms": round(added_pooled, 2),
                "rounds_used": [k + 1 for k, pair in enumerate(pairs) if pair in clean],
                "p50_added_per_round_ms": [round(x[0], 2) for x in per_round],
                "p50_target_met": added <= 3.0,
                "throughput_ratio": round(ratio, 3),
                "throughput_ratio_per_round": [round(x[1], 3) for x in per_round],
                "throughput_target_met": ratio >= 0.9,
            }
        )
    return found


def queue_main(args: argparse.Namespace) -> int:
    n, per_client = (3, 1) if args.smoke else (200, 25)
    rounds = 1 if args.smoke else args.rounds
    args.out.mkdir(parents=True, exist_ok=True)
    catalog = load_catalog(ROOT / "exercises")
    var = Path(tempfile.mkdtemp(prefix="drill-bench-queue-"))
    done: list[dict[str, Any]] = []
    for number in range(rounds):
        one: dict[str, Any] = {"load_before": round(os.getloadavg()[0], 2)}
        one["embedded"] = embedded_mode(
            var / f"round{number}", catalog, n, per_client, wait_reference=not args.smoke
        )
        one["load_between"] = round(os.getloadavg()[0], 2)
        one["distributed"] = distributed_mode(
            var / f"round{number}", catalog, n, per_client, args.layout
        )
        done.append(one)
        print(f"round {number + 1} of {rounds} done", flush=True)
    modes = {
        mode: {
            "layout": done[0][mode]["layout"],
            "startup_s": [r[mode]["startup_s"] for r in done],
            "pool_memory_mib": [r[mode]["pool_memory_mib"] for r in done],
            "tracks": merge_rounds([r[mode]["tracks"] for r in done]),
        }
        for mode in MODES
    }
    for r in done:  # each round's summaries only: the samples are pooled in "modes"
        for mode in MODES:
            for row in r[mode]["tracks"]:
                for key in ("submit", "c16"):
                    row[key].pop("samples")
                row["hops_submit"] = hop_summary(row.pop("hops_submit_raw"))
                row["hops_c16"] = hop_summary(row.pop("hops_c16_raw"))
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": machine(),
        "load_average_1min": {
            "before": done[0]["load_before"],
            "after": round(os.getloadavg()[0], 2),
        },
        "database": "SQLite (WAL) in both modes",
        "clients": CLIENTS,
        "per_client": per_client,
        "sequential": n,
        "layout": args.layout,
        "smoke": args.smoke,
        "modes": modes,
        "rounds": done,
    }
    report["targets"] = comparison(report)
    print_queue(report)
    (args.out / "queue.json").write_text(json.dumps(report, indent=1) + "\n")
    plot_queue(report, args.out / "queue.png")
    print(f"wrote {args.out / 'queue.json'} and {args.out / 'queue.png'}")
    ok = all(
        row["submit"]["failed"] == 0 and row["c16"]["failed"] == 0 and row["c16"]["shed"] == 0
        for mode in MODES
        for row in modes[mode]["tracks"]
    )
    if ok:  # the databases and the nodes' logs; kept to look at when something failed
        shutil.rmtree(var, ignore_errors=True)
    else:
        print(f"failed verdicts or shed requests: the logs are under {var}")
    return 0 if ok else 1


def print_queue(report: dict[str, Any]) -> None:
    loads = report["load_average_1min"]
    rounds = len(report["rounds"])
    print(
        f"{report['machine']}; load average {loads['before']:.2f} before, "
        f"{loads['after']:.2f} after; SQLite in both modes; {rounds} round(s) of "
        "embedded then distributed"
    )
    for mode in MODES:
        m = report["modes"][mode]
        startup = ", ".join(f"{x:.1f}" for x in m["startup_s"])
        memory = ", ".join(
            f"{x['pss']:.0f} ({x['anon_huge_pages']:.0f})" for x in m["pool_memory_mib"]
        )
        print(
            f"{mode}: {m['layout']}; start-up to ready {startup} s; "
            f"sandbox pools' PSS (in 2 MiB pages) after warm-up {memory} MiB"
        )
    print("p50, p95, x16 p99: all rounds' samples pooled; x16 /s and CPU: the median of the rounds")
    for k, r in enumerate(report["rounds"]):
        for mode in MODES:
            for row in r[mode]["tracks"]:
                if row["disturbed"]:
                    other = max(
                        row["cpu_ms_per_submission_1"]["other"],
                        row["cpu_ms_per_submission"]["other"],
                    )
                    print(
                        f"round {k + 1}, {mode}, {row['exercise']} [{row['track']}]: left "
                        f"out, disturbed ({other:.1f} ms of CPU per submission outside "
                        "the benchmark)"
                    )
    head = (
        f"{'track':36} {'mode':11} {'p50':>6} {'p95':>6} {'x16 /s':>6} {'x16 p99':>7} {'fail':>4}"
    )
    print("\nSubmit over HTTP (ms); x16: 16 concurrent clients")
    print(head)
    print("-" * len(head))
    for i, (slug, track) in enumerate(TRACKS):
        for mode in MODES:
            r = report["modes"][mode]["tracks"][i]
            fails = r["submit"]["failed"] + r["c16"]["failed"] + r["c16"]["shed"]
            print(
                f"{slug + ' [' + track + ']':36} {mode:11} "
                f"{r['submit']['latency_ms']['p50']:6.1f} {r['submit']['latency_ms']['p95']:6.1f} "
                f"{r['c16']['throughput_per_s']:6.1f} {r['c16']['latency_ms']['p99']:7.1f} "
                f"{fails:4d}"
            )
    columns = (
        ("api", "api"),
        ("api_main_thread", "api loop"),
        ("worker_processes", "workers"),
        ("worker_main_threads", "w. loops"),
        ("sandbox_pools", "pools"),
        ("broker", "nats"),
        ("clients", "clients"),
        ("machine", "machine"),
        ("other", "other"),
        ("steal", "steal"),
    )
    head = f"{'track':36} {'mode':11} " + " ".join(f"{label:>8}" for _, label in columns)
    print("\nCPU per graded submission at 16 clients (ms)")
    print(head)
    print("-" * len(head))
    for i, (slug, track) in enumerate(TRACKS):
        for mode in MODES:
            cpu = report["modes"][mode]["tracks"][i]["cpu_ms_per_submission"]
            print(
                f"{slug + ' [' + track + ']':36} {mode:11} "
                + " ".join(f"{cpu[key]:8.2f}" for key, _ in columns)
            )
    head = (
        f"{'track':36} {'clients':>7} {'publish':>8} {'to start':>8} {'worker':>8} "
        f"{'back':>8} {'queue':>8} {'outside':>8}"
    )
    print(
        "\nDistributed hops, p50 (ms); queue = publish + to start + back; outside = the "
        "round trip less the four hops (1 client)"
    )
    print(head)
    print("-" * len(head))
    for r in report["modes"]["distributed"]["tracks"]:
        for key, clients in (("hops_submit", 1), ("hops_c16", CLIENTS)):
            h = r[key]
            if not h["n"]:
                continue
            print(
                f"{r['exercise'] + ' [' + r['track'] + ']':36} {clients:7d} "
                + " ".join(f"{h[name]['p50']:8.2f}" for name in (*HOP_NAMES, "queue"))
                + (f" {h['outside']['p50']:8.2f}" if "outside" in h else "")
            )
    print("\nTargets: queue adds <= 3 ms to p50 at 1 client; x16 throughput >= 90% of embedded")
    for t in report["targets"]:
        used = ",".join(str(k) for k in t["rounds_used"])
        added = ", ".join(f"{x:+.1f}" for x in t["p50_added_per_round_ms"])
        ratios = ", ".join(f"{x * 100:.0f}%" for x in t["throughput_ratio_per_round"])
        print(
            f"{t['exercise'] + ' [' + t['track'] + ']':36} p50 {t['p50_added_ms']:+6.1f} ms "
            f"({'met' if t['p50_target_met'] else 'missed'}; rounds {used}: {added}); throughput "
            f"{t['throughput_ratio'] * 100:5.1f}% "
            f"({'met' if t['throughput_target_met'] else 'missed'}; rounds {ratios})"
        )


def plot_queue(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, second, third, right) = plt.subplots(
        1, 4, figsize=(21, 5), gridspec_kw={"width_ratios": [3, 2, 2, 2]}
    )
    colours = {"embedded": "tab:blue", "distributed": "tab:orange"}
    shorts = [f"{slug.split('-')[0]}…\n[{track}]" for slug, track in TRACKS]
    rows = {mode: report["modes"][mode]["tracks"] for mode in MODES}
    # 1: Submit latency at 1 and at 16 clients, both modes side by side.
    positions, data, tints = [], [], []
    for i in range(len(TRACKS)):
        for j, (mode, key) in enumerate(
            (
                ("embedded", "submit"),
                ("distributed", "submit"),
                ("embedded", "c16"),
                ("distributed", "c16"),
            )
        ):
            positions.append(i * 5 + j + (0.4 if j >= 2 else 0))
            data.append(rows[mode][i][key]["samples"])
            tints.append(colours[mode])
    boxes = left.boxplot(
        data, positions=positions, widths=0.7, whis=(5, 95), patch_artist=True, showfliers=False
    )
    for box, tint in zip(boxes["boxes"], tints, strict=True):
        box.set_facecolor(tint)
        box.set_alpha(0.6)
    left.set_xticks([i * 5 + 1.7 for i in range(len(TRACKS))], shorts, fontsize=8)
    left.set_yscale("log")
    left.set_ylabel("Submit round trip over HTTP (ms, log scale)")
    left.set_title("Submit latency: 1 client (left pair), 16 clients (right pair)", fontsize=10)
    for mode, tint in colours.items():
        left.bar([0], [0], color=tint, alpha=0.6, label=mode)
    left.legend(fontsize=8, loc="upper left")
    # 2: throughput at 16 clients.
    width = 0.38
    for j, mode in enumerate(MODES):
        values = [r["c16"]["throughput_per_s"] for r in rows[mode]]
        xs = [i + (j - 0.5) * width for i in range(len(TRACKS))]
        second.bar(xs, values, width, color=colours[mode], alpha=0.8, label=mode)
        for x, v in zip(xs, values, strict=True):
            second.text(x, v, f"{v:.1f}", ha="center", va="bottom", fontsize=7)
    second.set_xticks(range(len(TRACKS)), shorts, fontsize=8)
    second.set_ylabel("graded submissions per second")
    second.set_title(
        f"Throughput, {CLIENTS} clients ({report['machine']['cores']} cores)", fontsize=10
    )
    second.legend(fontsize=8)
    # 3: the machine's CPU per submission at 16 clients, by process.
    parts = (
        ("API process", "tab:blue", lambda c: c["api"]),
        ("drill worker processes", "tab:olive", lambda c: c["worker_processes"]),
        ("sandbox pools", "tab:gray", lambda c: c["sandbox_pools"]),
        ("nats-server", "tab:red", lambda c: c["broker"]),
        (
            "the rest (clients, kernel, others)",
            "tab:cyan",
            lambda c: (
                c["machine"] - c["api"] - c["worker_processes"] - c["sandbox_pools"] - c["broker"]
            ),
        ),
    )
    for j, mode in enumerate(MODES):
        xs = [i + (j - 0.5) * width for i in range(len(TRACKS))]
        bottom = [0.0] * len(TRACKS)
        for label, tint, part in parts:
            values = [max(0.0, part(r["cpu_ms_per_submission"])) for r in rows[mode]]
            third.bar(
                xs,
                values,
                width,
                bottom=bottom,
                color=tint,
                edgecolor=colours[mode],
                label=label if j == 0 else None,
            )
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        for x, total in zip(xs, bottom, strict=True):
            third.text(x, total, f"{mode[0].upper()}", ha="center", va="bottom", fontsize=7)
    third.set_xticks(range(len(TRACKS)), shorts, fontsize=8)
    third.set_ylabel("CPU ms per graded submission (E: embedded, D: distributed)")
    third.set_title("CPU per submission at 16 clients", fontsize=10)
    third.set_ylim(0, third.get_ylim()[1] * 1.45)
    third.legend(fontsize=7, loc="upper left")
    # 4: one client: where a distributed Submit's time goes, against the embedded p50.
    hop_parts = (
        ("outside the queue (HTTP, job, verdict, commit)", "tab:blue", "outside"),
        ("publish", "tab:green", "publish"),
        ("to start", "tab:red", "to_start"),
        ("worker", "tab:gray", "worker"),
        ("back", "tab:purple", "back"),
    )
    for i, row in enumerate(rows["distributed"]):
        hops = row["hops_submit"]
        bottom_value = 0.0
        for label, tint, key in hop_parts:
            value = hops[key]["p50"] if key in hops else 0.0
            right.bar(
                i, value, 0.5, bottom=bottom_value, color=tint, label=label if i == 0 else None
            )
            bottom_value += value
        embedded_p50 = rows["embedded"][i]["submit"]["latency_ms"]["p50"]
        right.hlines(
            embedded_p50,
            i - 0.35,
            i + 0.35,
            colors="black",
            linestyles="dashed",
            label="embedded Submit p50" if i == 0 else None,
        )
    right.set_xticks(range(len(TRACKS)), shorts, fontsize=8)
    right.set_ylabel("ms (p50 of each part, stacked)")
    right.set_title("Distributed, 1 client: where a Submit's time goes", fontsize=10)
    right.set_ylim(0, right.get_ylim()[1] * 1.5)
    right.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _limits(settings: Settings):  # type: ignore[no-untyped-def]
    from graders.grading.isolation import JobLimits

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
