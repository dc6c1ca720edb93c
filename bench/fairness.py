"""Fair share of the graders, measured: how long a learner's correct Submit takes while
another client keeps its whole allowance of slow Submits queued.

Not a test: it measures, prints a table and writes ``fairness.json``. For each mode
(``drill serve`` with its own pool of two bubblewrap workers; an API node over a real
nats-server with two ``drill worker`` slots) and each setting (the default share, half
the slots per client; and the share switched off, ``DRILL_CLIENT_SHARE=2``, as before
the guard) it measures the round trip of a correct Submit of the ``double`` exercise
(tests/graders/exercises):

- alone: nothing else on the service;
- under a hog: a client (its own address through the trusted proxy) that keeps its
  allowance (``DRILL_MAX_PENDING_PER_CLIENT``, 8) of Submits that sleep until the wall
  limit (6 s) queued, sending a new one as each comes back.

Usage: ``python bench/fairness.py [--smoke] [--out DIR] [--samples N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.grading import machine  # noqa: E402
from tests.cluster import Cluster  # noqa: E402
from tests.services import running_nats  # noqa: E402
from tests.serving import running_server  # noqa: E402

EXERCISES = ROOT / "tests" / "graders" / "exercises"
CORRECT = (ROOT / "tests" / "graders" / "cases" / "passing" / "submission.py").read_text()
# The hog's Submits sleep until the wall limit; a smoke run's only 1 s, so that stopping a
# server does not wait out eight queued wall limits (the smoke checks the report, not times).
SLOW = "import time\n\ndef double(x):\n    time.sleep(60)\n"
SLOW_SMOKE = "import time\n\ndef double(x):\n    time.sleep(1)\n"
ALLOWANCE = 8
ENV = {
    "DRILL_EXERCISES_DIR": str(EXERCISES),
    "DRILL_TRUSTED_PROXIES": "127.0.0.1",
    "DRILL_RATE_PER_MINUTE": "100000",
    "DRILL_RATE_BURST": "10000",
    "DRILL_MAX_PENDING_PER_CLIENT": str(ALLOWANCE),
    "DRILL_QUEUE_WAIT_SECONDS": "120",  # the hog's own jobs wait; none is refused for it
}
SETTINGS: dict[str, dict[str, str]] = {
    "share (default)": {},
    "no share": {"DRILL_CLIENT_SHARE": "2"},
}


def submit(http: httpx.Client, base: str, address: str, code: str) -> tuple[int, float]:
    started = time.perf_counter()
    answer = http.post(
        f"{base}/api/exercises/double/submissions",
        json={"track": "numpy", "code": code, "mode": "submit"},
        headers={"X-Forwarded-For": address},
    )
    return answer.status_code, (time.perf_counter() - started) * 1000


def learner_times(base: str, samples: int) -> list[float]:
    times = []
    with httpx.Client(timeout=300) as http:
        for _ in range(samples):
            status, ms = submit(http, base, "10.9.0.2", CORRECT)
            assert status == 200, status
            times.append(ms)
            time.sleep(0.2)
    return times


@contextmanager
def hog(base: str, code: str) -> Iterator[dict[str, int]]:
    """A client keeping ALLOWANCE slow Submits of ``code`` queued until the block ends."""
    stop = threading.Event()
    tally = {"sent": 0, "refused": 0}

    def loop() -> None:
        with httpx.Client(timeout=300) as http:
            while not stop.is_set():
                tally["sent"] += 1
                try:
                    status, _ = submit(http, base, "10.9.0.1", code)
                except httpx.HTTPError:  # the server stopped under it, at the end
                    return
                if status in (429, 503):
                    tally["refused"] += 1
                    time.sleep(0.5)

    threads = [threading.Thread(target=loop, daemon=True) for _ in range(ALLOWANCE)]
    for thread in threads:
        thread.start()
    time.sleep(3)  # every one of them queued, the first ones running
    try:
        yield tally
    finally:
        stop.set()


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "max_ms": round(ordered[-1], 1),
    }


def measure(base: str, samples: int, slow: str) -> dict[str, Any]:
    learner_times(base, 2)  # warm
    alone = learner_times(base, samples)
    with hog(base, slow) as tally:
        loaded = learner_times(base, samples)
    return {"alone": summary(alone), "hog": summary(loaded), "hog_requests": tally}


@contextmanager
def embedded(var: Path, extra: dict[str, str]) -> Iterator[str]:
    with running_server(var, None, DRILL_WORKERS="2", **ENV, **extra) as server:
        yield server.base


@contextmanager
def distributed(var: Path, extra: dict[str, str]) -> Iterator[str]:
    with running_nats() as broker:
        var.mkdir(parents=True, exist_ok=True)
        cluster = Cluster(broker.url, f"sqlite:///{var / 'drill.db'}", folder=var)
        try:
            cluster.start_worker("ref", "reference")
            cluster.start_worker("w1", "learner", DRILL_WORKERS="2")
            api = cluster.start_api("api", DRILL_GRADING_SLOTS="2", **ENV, **extra)
            assert api.base is not None
            yield api.base
        finally:
            cluster.close()


MODES: dict[str, Callable[[Path, dict[str, str]], AbstractContextManager[str]]] = {
    "embedded": embedded,
    "distributed": distributed,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="two samples per row, the default share only, a hog whose Submits sleep 1 s",
    )
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "var" / "bench")
    args = parser.parse_args()
    samples = 2 if args.smoke else args.samples
    args.out.mkdir(parents=True, exist_ok=True)
    var = Path(tempfile.mkdtemp(prefix="drill-fairness-"))
    rows: list[dict[str, Any]] = []
    settings = {"share (default)": {}} if args.smoke else SETTINGS
    slow = SLOW_SMOKE if args.smoke else SLOW
    for mode, start in MODES.items():
        for setting, extra in settings.items():
            with start(var / f"{mode}-{len(rows)}", extra) as base:
                row = {"mode": mode, "setting": setting, **measure(base, samples, slow)}
            rows.append(row)
            print(
                f"{mode:12} {setting:16} alone p50 {row['alone']['p50_ms']:8.1f} ms   under a "
                f"hog p50 {row['hog']['p50_ms']:8.1f} ms, max {row['hog']['max_ms']:8.1f} ms",
                flush=True,
            )
    report = {"machine": machine(), "allowance": ALLOWANCE, "samples": samples, "rows": rows}
    (args.out / "fairness.json").write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out / 'fairness.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
