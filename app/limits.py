"""Load shedding in front of the worker pool: a per-client rate limit (the bounded, fair
queue behind it is app/admission.py).

The rate limit is a token bucket per client: in this process (one web node), or in the
shared database (PostgreSQL: several nodes behind a load balancer admit ``burst``
submissions from a client between them, not ``burst`` each).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from sqlalchemy import text

from app.errors import RateLimited
from app.settings import AppSettings
from app.store import Store, database_errors

MAX_CLIENTS = 10_000  # buckets kept; the least recently seen are dropped
CLIENT_CHARS = 128  # the width of rate_buckets.client
PRUNE_EVERY = 60.0  # seconds between two prunes of idle buckets by one node


class Limiter(Protocol):
    def check(self, client: str) -> None:
        """Take one submission from ``client``'s bucket, or raise RateLimited."""
        ...


def _limited(tokens: float, rate: float, what: str = "submissions") -> RateLimited:
    wait = max(1, math.ceil((1.0 - tokens) / rate))
    if what == "submissions":
        return RateLimited(
            f"too many submissions; you can submit again in {wait} s", retry_after=wait
        )
    return RateLimited(f"too many {what}; try again in {wait} s", retry_after=wait)


class RateLimiter:
    """A token bucket per client: ``burst`` submissions at once, ``per_minute`` sustained
    (``what`` names what is counted, in the refusal's message)."""

    def __init__(self, per_minute: float, burst: int, what: str = "submissions") -> None:
        self.what = what
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
                raise _limited(tokens, self.rate, self.what)
            self._buckets[client] = (tokens - 1.0, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)


# The bucket's arithmetic, as RateLimiter's, in one statement run by the database with
# the database's clock (the nodes' clocks may disagree): refill by the time since the
# last take, capped at the burst; take a token only if one is there. The DO UPDATE's
# WHERE leaves a bucket without a token as it is, so the statement returns a row exactly
# when a token was taken. The row lock of ON CONFLICT makes concurrent takes from any
# node queue up on the bucket: none can read a token another one took. ``:now`` is null
# but in tests, which give the time instead of reading a clock.
_TAKE = {
    # One round trip: the taking upsert in a CTE; the outer SELECT says whether it took a
    # token and, for a refusal, how many the bucket holds (for Retry-After).
    "postgresql": """
WITH clock AS (
    SELECT coalesce(CAST(:now AS float8), extract(epoch FROM clock_timestamp())::float8) AS now
),
taken AS (
    INSERT INTO rate_buckets AS b (client, tokens, stamp)
    SELECT :client, :burst - 1, now FROM clock
    ON CONFLICT (client) DO UPDATE
        SET tokens = least(:burst, b.tokens + (excluded.stamp - b.stamp) * :rate) - 1,
            stamp = excluded.stamp
        WHERE least(:burst, b.tokens + (excluded.stamp - b.stamp) * :rate) >= 1
    RETURNING b.client
)
SELECT EXISTS (SELECT FROM taken),
       (SELECT least(:burst, b.tokens + (clock.now - b.stamp) * :rate)
          FROM rate_buckets AS b, clock WHERE b.client = :client)
""",
    # SQLite has one writer at a time, so the upsert alone is atomic; its CTEs cannot
    # modify, so a refusal reads the bucket afterwards (only for Retry-After).
    "sqlite": """
INSERT INTO rate_buckets AS b (client, tokens, stamp)
VALUES (:client, :burst - 1, coalesce(:now, (julianday('now') - 2440587.5) * 86400.0))
ON CONFLICT (client) DO UPDATE
    SET tokens = min(:burst, b.tokens + (excluded.stamp - b.stamp) * :rate) - 1,
        stamp = excluded.stamp
    WHERE min(:burst, b.tokens + (excluded.stamp - b.stamp) * :rate) >= 1
RETURNING 1, NULL
""",
}
_SQLITE_TOKENS = text(
    "SELECT min(:burst, tokens + "
    "(coalesce(:now, (julianday('now') - 2440587.5) * 86400.0) - stamp) * :rate) "
    "FROM rate_buckets WHERE client = :client"
)
# A bucket idle for a full refill is full: deleting it changes nothing but the table's size.
_PRUNE = {
    "postgresql": "DELETE FROM rate_buckets WHERE stamp < "
    "coalesce(CAST(:now AS float8), extract(epoch FROM clock_timestamp())) - :refill",
    "sqlite": "DELETE FROM rate_buckets "
    "WHERE stamp < coalesce(:now, (julianday('now') - 2440587.5) * 86400.0) - :refill",
}


class DatabaseRateLimiter:
    """RateLimiter's token buckets in the ``rate_buckets`` table, shared by every node
    on the database. A check is one statement (on PostgreSQL 15, on loopback: about
    0.6 ms, measured by bench/rate_limit.py)."""

    def __init__(
        self,
        store: Store,
        per_minute: float,
        burst: int,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """``clock``: seconds since the epoch, for tests; by default the database's own
        clock, which every node shares."""
        if store.dialect not in _TAKE:
            raise ValueError(f"no shared rate limiter for {store.dialect}")
        self.store = store
        # Autocommit: the statement is atomic by itself, and BEGIN and COMMIT would each
        # cost a round trip more.
        self._engine = store.engine.execution_options(isolation_level="AUTOCOMMIT")
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self._take = text(_TAKE[store.dialect])
        self._prune = text(_PRUNE[store.dialect])
        self._next_prune = time.monotonic() + PRUNE_EVERY
        self.clock = clock

    def _now(self) -> float | None:
        return None if self.clock is None else self.clock()

    def check(self, client: str) -> None:
        params = {
            "client": client[:CLIENT_CHARS],
            "burst": self.burst,
            "rate": self.rate,
            "now": self._now(),
        }
        with database_errors():
            with self._engine.connect() as connection:
                row = connection.execute(self._take, params).first()
                allowed, tokens = (False, None) if row is None else (bool(row[0]), row[1])
                if row is None:  # SQLite: refused (the bucket is as it was)
                    tokens = connection.execute(_SQLITE_TOKENS, params).scalar()
            if time.monotonic() >= self._next_prune:
                self.prune()
        if not allowed:
            # tokens is None only if the bucket was made after this statement's snapshot.
            raise _limited(0.0 if tokens is None else float(tokens), self.rate)

    def prune(self) -> int:
        """Delete the buckets idle for longer than a full refill; return how many."""
        self._next_prune = time.monotonic() + PRUNE_EVERY
        with self._engine.connect() as connection:
            deleted = connection.execute(
                self._prune, {"refill": self.burst / self.rate, "now": self._now()}
            )
        return int(deleted.rowcount)


def rate_limiter(settings: AppSettings, store: Store) -> Limiter:
    """The shared limiter on PostgreSQL, where several nodes may serve the same clients;
    the in-memory one otherwise (SQLite means one node, and costs no query per Submit)."""
    if store.dialect == "postgresql":
        return DatabaseRateLimiter(store, settings.rate_per_minute, settings.rate_burst)
    return RateLimiter(settings.rate_per_minute, settings.rate_burst)
