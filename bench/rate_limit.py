"""The shared rate limiter's cost: one ``DatabaseRateLimiter.check`` per Submit, on
PostgreSQL (the store several API nodes share), against the in-memory limiter one node
uses with SQLite.

PostgreSQL runs in a cluster of its own (tests.services.postgres_server), on loopback.
The checks cycle over ``--clients`` client addresses with a budget none of them
exhausts, so every check is the admitting statement; the median of ``--checks`` after
a warm-up. The figure is quoted in docs/performance.md.

Usage: ``.venv/bin/python bench/rate_limit.py [--checks 300] [--clients 30] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.limits import DatabaseRateLimiter, Limiter, RateLimiter  # noqa: E402
from app.store import Store  # noqa: E402
from tests.services import postgres_server  # noqa: E402

WARM_UP = 20
# No client reaches its limit: the bench times admissions, not refusals.
PER_MINUTE, BURST = 6_000_000.0, 1_000_000


def timed(limiter: Limiter, checks: int, clients: int) -> dict[str, float]:
    for n in range(WARM_UP):
        limiter.check(f"warm-up-{n % clients}")
    times = []
    for n in range(checks):
        start = time.perf_counter()
        limiter.check(f"client-{n % clients}")
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "checks": checks,
        "p50_ms": statistics.median(times),
        "p95_ms": times[min(len(times) - 1, int(len(times) * 0.95))],
        "max_ms": times[-1],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=300)
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with postgres_server() as url:
        store = Store(url)
        try:
            shared = DatabaseRateLimiter(store, PER_MINUTE, BURST)
            results["postgresql"] = timed(shared, args.checks, args.clients)
        finally:
            store.close()
    results["memory"] = timed(RateLimiter(PER_MINUTE, BURST), args.checks, args.clients)
    for name, row in results.items():
        print(
            f"{name:10} p50 {row['p50_ms']:.3f} ms  p95 {row['p95_ms']:.3f} ms  "
            f"max {row['max_ms']:.3f} ms  ({row['checks']} checks)"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
