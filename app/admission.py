"""Who waits for a grader, and who is graded next: a bounded queue shared fairly.

Three bounds, checked when a Submit or Run arrives (before any grading work):

- ``limit`` submissions waiting for or holding a grading slot on this node, beyond which
  the service is at capacity (503);
- ``client_pending`` of them from one client (address) and ``learner_pending`` from one
  learner, beyond which that client or learner is told to wait for its results (429).

Then each waits for its turn. This node hands out ``slots`` grading slots (its learner
workers, or its share of the cluster's), and never more than ``client_share`` of them to
one client: one client's slow jobs cannot hold every worker, so another learner's Submit
finds one free. A freed slot goes to the waiting submission whose client holds the fewest
slots now and, among equals, was served longest ago (then the same for learners, then
arrival): clients and learners are served in turn, not first come, first served, so a
client that queued twenty jobs does not make a newcomer wait behind all twenty.

Behind a load balancer, one client may reach several nodes; with a ``cluster`` share
(app/cluster_share.py, on PostgreSQL) a job granted a slot here also takes a lease counted
over every node, and gives its slot back to wait again while the client holds its share
elsewhere.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from app.cluster_share import ClusterShare, Lease
from app.errors import RateLimited, Unavailable
from app.store import StoreUnavailable

log = logging.getLogger("drill.admission")

# Retry-After of a refusal for too many pending submissions of one client or learner:
# long enough for a typical job to finish, short enough not to look like a ban.
PENDING_RETRY_SECONDS = 5
# How soon a job whose client holds its share on other nodes asks again.
CLUSTER_RETRY_SECONDS = 0.2


@dataclass(eq=False)
class Ticket:
    """One admitted submission: it holds a place in the queue, then a grading slot."""

    client: str
    learner: str
    arrived: int
    granted: bool = False
    ready: threading.Event = field(default_factory=threading.Event)
    lease: Lease | None = None  # its lease in the cluster-wide share, while it holds one


class Admission:
    """The bounded, fair queue in front of this node's grading slots (module docstring)."""

    def __init__(
        self,
        limit: int,
        *,
        slots: int,
        client_share: int,
        client_pending: int,
        learner_pending: int,
        cluster: ClusterShare | None = None,
    ) -> None:
        self.limit = limit
        self.slots = slots
        self.client_share = client_share
        self.client_pending = client_pending
        self.learner_pending = learner_pending
        self.cluster = cluster
        self.pending = 0  # admitted and not finished: waiting or graded
        self.running = 0  # holding a grading slot
        self._pending_by_client: Counter[str] = Counter()
        self._pending_by_learner: Counter[str] = Counter()
        self._running_by_client: Counter[str] = Counter()
        self._running_by_learner: Counter[str] = Counter()
        # When each client and learner with a submission pending was last given a slot
        # (a count of hand-outs): the turn order. Forgotten when nothing is pending.
        self._served_client: dict[str, int] = {}
        self._served_learner: dict[str, int] = {}
        self._waiting: list[Ticket] = []
        self._arrivals = itertools.count()
        self._hand_outs = itertools.count(1)
        self._lock = threading.Lock()

    @contextmanager
    def slot(self, client: str = "", learner: str = "") -> Iterator[Ticket]:
        """A place in the queue for one submission, or RateLimited / Unavailable."""
        with self._lock:
            if self.pending >= self.limit:
                raise Unavailable(
                    "the graders are at capacity; please try again in a few seconds",
                    retry_after=2,
                )
            if self._pending_by_client[client] >= self.client_pending:
                raise RateLimited(
                    f"{self.client_pending} submissions from your address are already waiting "
                    "to be graded; wait for their results before you send more",
                    retry_after=PENDING_RETRY_SECONDS,
                )
            if self._pending_by_learner[learner] >= self.learner_pending:
                raise RateLimited(
                    f"you already have {self.learner_pending} submissions waiting to be "
                    "graded; wait for their results before you send more",
                    retry_after=PENDING_RETRY_SECONDS,
                )
            self.pending += 1
            self._pending_by_client[client] += 1
            self._pending_by_learner[learner] += 1
            ticket = Ticket(client, learner, next(self._arrivals))
        try:
            yield ticket
        finally:
            with self._lock:
                if ticket.granted:
                    self._release(ticket)
                elif ticket in self._waiting:
                    self._waiting.remove(ticket)
                self.pending -= 1
                if _decrement(self._pending_by_client, client):
                    self._served_client.pop(client, None)
                if _decrement(self._pending_by_learner, learner):
                    self._served_learner.pop(learner, None)
                self._hand_out()

    def wait_turn(self, ticket: Ticket, timeout: float) -> None:
        """Block until ``ticket`` holds a grading slot (it keeps it until its ``slot``
        ends; a cluster lease, if any, until ``give_back``), or raise Unavailable after
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                self._waiting.append(ticket)
                self._hand_out()
            if not ticket.ready.wait(max(0.0, deadline - time.monotonic())):
                with self._lock:
                    if not ticket.granted:  # not granted between the timeout and the lock
                        self._waiting.remove(ticket)
                        raise _no_grader(timeout)
            if self.cluster is None:
                return
            ticket.lease = self.cluster.take(ticket.client)
            if ticket.lease is not None:
                return
            # The client holds its share through other nodes: this slot goes to someone
            # else, and the job asks again shortly.
            with self._lock:
                self._release(ticket)
                ticket.granted = False
                ticket.ready.clear()
                self._hand_out()
            if time.monotonic() + CLUSTER_RETRY_SECONDS >= deadline:
                raise _no_grader(timeout)
            time.sleep(CLUSTER_RETRY_SECONDS)

    def give_back(self, ticket: Ticket) -> None:
        """Give back the ticket's cluster lease once its job is done (blocking)."""
        if self.cluster is None or ticket.lease is None:
            return
        try:
            self.cluster.give_back(ticket.lease)
        except StoreUnavailable as exc:
            log.warning("could not give back a grading lease (its connection is closed): %s", exc)
        ticket.lease = None

    def _hand_out(self) -> None:
        """Give free slots to waiting tickets in turn (under the lock)."""
        while self.running < self.slots and self._waiting:
            eligible = [
                t for t in self._waiting if self._running_by_client[t.client] < self.client_share
            ]
            if not eligible:
                return
            chosen = min(
                eligible,
                key=lambda t: (
                    self._running_by_client[t.client],
                    self._served_client.get(t.client, 0),
                    self._running_by_learner[t.learner],
                    self._served_learner.get(t.learner, 0),
                    t.arrived,
                ),
            )
            turn = next(self._hand_outs)
            self._served_client[chosen.client] = turn
            self._served_learner[chosen.learner] = turn
            self._waiting.remove(chosen)
            chosen.granted = True
            self.running += 1
            self._running_by_client[chosen.client] += 1
            self._running_by_learner[chosen.learner] += 1
            chosen.ready.set()

    def _release(self, ticket: Ticket) -> None:
        self.running -= 1
        _decrement(self._running_by_client, ticket.client)
        _decrement(self._running_by_learner, ticket.learner)


def _no_grader(timeout: float) -> Unavailable:
    return Unavailable(
        f"no grader became free within {timeout:.0f} s; please try again in a minute",
        retry_after=30,
    )


def _decrement(counter: Counter[str], key: str) -> bool:
    """Count one less of ``key``, forgetting it at zero (the counters stay small); say
    whether it reached zero."""
    counter[key] -= 1
    if counter[key] <= 0:
        del counter[key]
        return True
    return False
