"""Load shedding in front of the worker pool: a per-client rate limit and a bounded queue."""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager

from app.errors import RateLimited, Unavailable

MAX_CLIENTS = 10_000  # buckets kept; the least recently seen are dropped


class RateLimiter:
    """A token bucket per client: ``burst`` submissions at once, ``per_minute`` sustained."""

    def __init__(self, per_minute: float, burst: int) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def check(self, client: str) -> None:
        now = time.monotonic()
        with self._lock:
            tokens, stamp = self._buckets.pop(client, (self.burst, now))
            tokens = min(self.burst, tokens + (now - stamp) * self.rate)
            if tokens < 1.0:
                self._buckets[client] = (tokens, now)
                wait = math.ceil((1.0 - tokens) / self.rate)
                raise RateLimited(
                    f"too many submissions; you can submit again in {wait} s", retry_after=wait
                )
            self._buckets[client] = (tokens - 1.0, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)


class Admission:
    """At most ``limit`` submissions waiting for or holding a worker."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pending = 0
        self._lock = threading.Lock()

    @contextmanager
    def slot(self) -> Iterator[None]:
        with self._lock:
            if self.pending >= self.limit:
                raise Unavailable(
                    "the graders are at capacity; please try again in a few seconds",
                    retry_after=2,
                )
            self.pending += 1
        try:
            yield
        finally:
            with self._lock:
                self.pending -= 1
