"""A client's share of the workers, counted across API nodes (PostgreSQL).

Each node's queue (app/admission.py) gives one client at most its share of that node's
slots. Behind a load balancer that spreads one client over N nodes, that would be N
shares; so on PostgreSQL a job also holds one of its client's ``share`` session-level
advisory locks (``pg_try_advisory_lock``) before it goes to a worker, on a connection of
its own, and unlocks it when the job ends. A lock belongs to its connection: a node that
dies holding some drops its connections, and PostgreSQL frees their locks at once, so no
lease outlives its node and none needs a table or a timeout.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, create_engine, func, select
from sqlalchemy.exc import DBAPIError

from app.limits import CLIENT_CHARS
from app.migrate import lock_key
from app.store import Store, StoreUnavailable, database_errors


@dataclass
class Lease:
    """One of a client's locks, held on ``connection`` until given back."""

    connection: Connection
    key: int


class ClusterShare:
    """``share`` leases per client over every node on the database."""

    def __init__(self, store: Store, share: int, slots: int) -> None:
        if store.dialect != "postgresql":
            raise ValueError("a cluster-wide share needs PostgreSQL")
        self.share = share
        # A connection per job holding a lease: at most this node's slots at once.
        self._engine = create_engine(
            store.engine.url,
            pool_size=slots,
            max_overflow=slots,
            pool_pre_ping=True,
            isolation_level="AUTOCOMMIT",
        )

    def take(self, client: str) -> Lease | None:
        """A lease for one job of ``client``, or None when the client holds its share
        already (on any node)."""
        client = client[:CLIENT_CHARS]
        with database_errors():
            connection = self._engine.connect()
        try:
            for place in range(self.share):
                key = lock_key(f"share:{place}:{client}")
                if connection.execute(select(func.pg_try_advisory_lock(key))).scalar_one():
                    return Lease(connection, key)
        except DBAPIError as exc:  # more than OperationalError: the lock state is unknown
            connection.invalidate()
            connection.close()
            raise StoreUnavailable(str(exc.orig)) from exc
        connection.close()
        return None

    def give_back(self, lease: Lease) -> None:
        try:
            lease.connection.execute(select(func.pg_advisory_unlock(lease.key)))
        except DBAPIError as exc:
            # Closing the session frees the lock: never return it to the pool locked.
            lease.connection.invalidate()
            raise StoreUnavailable(str(exc.orig)) from exc
        finally:
            lease.connection.close()

    def close(self) -> None:
        self._engine.dispose()
