"""A client's share of the workers, counted across API nodes (PostgreSQL).

Each node's queue (app/admission.py) gives one client at most its share of that node's
slots. Behind a load balancer that spreads one client over N nodes, that would be N
shares; so on PostgreSQL a job also takes a lease in ``grading_leases`` before it goes to
a worker, and a client holds at most ``share`` leases over all nodes. A lease is taken
under a transaction-scoped advisory lock on the client (two nodes cannot both see room
for one), given back when the job ends, and expires on its own after the longest a job
can take, so a node that dies holding leases frees them.
"""

from __future__ import annotations

import secrets

from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app.limits import CLIENT_CHARS
from app.migrate import lock_key
from app.store import Store, StoreUnavailable

# The database's clock (nodes' clocks may disagree), in seconds since the epoch.
_LOCK = text("SELECT pg_advisory_xact_lock(:key)")
_HELD = text(
    "SELECT count(*) FROM grading_leases "
    "WHERE client = :client AND expires > extract(epoch FROM clock_timestamp())"
)
_TAKE = text(
    "INSERT INTO grading_leases (job, client, expires) "
    "VALUES (:job, :client, extract(epoch FROM clock_timestamp()) + :ttl)"
)
_PRUNE = text(
    "DELETE FROM grading_leases "
    "WHERE client = :client AND expires <= extract(epoch FROM clock_timestamp())"
)
_GIVE_BACK = text("DELETE FROM grading_leases WHERE job = :job")


class ClusterShare:
    """``share`` leases per client over every node on the database."""

    def __init__(self, store: Store, share: int) -> None:
        if store.dialect != "postgresql":
            raise ValueError("a cluster-wide share needs PostgreSQL")
        self.share = share
        self._engine = store.engine

    def take(self, client: str, ttl: float) -> str | None:
        """A lease for one job of ``client`` (its id), or None when the client holds its
        share already. ``ttl``: seconds after which the lease frees itself."""
        client = client[:CLIENT_CHARS]
        job = secrets.token_hex(16)
        try:
            with self._engine.begin() as connection:
                connection.execute(_LOCK, {"key": lock_key(f"share:{client}")})
                connection.execute(_PRUNE, {"client": client})
                held = connection.execute(_HELD, {"client": client}).scalar_one()
                if held >= self.share:
                    return None
                connection.execute(_TAKE, {"job": job, "client": client, "ttl": ttl})
        except OperationalError as exc:
            raise StoreUnavailable(str(exc.orig)) from exc
        return job

    def give_back(self, job: str) -> None:
        try:
            with self._engine.begin() as connection:
                connection.execute(_GIVE_BACK, {"job": job})
        except OperationalError as exc:  # it expires on its own
            raise StoreUnavailable(str(exc.orig)) from exc
