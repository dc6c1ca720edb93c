"""A client's share of the workers across API nodes (app/cluster_share.py), on a real
PostgreSQL: two Admissions stand for two nodes on one database."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.admission import Admission
from app.cluster_share import ClusterShare
from app.errors import Unavailable
from app.store import Store
from tests.app.postgres import fresh_database

pytestmark = pytest.mark.sandbox  # a PostgreSQL server


@pytest.fixture(scope="module")
def store() -> Iterator[Store]:
    store = Store(fresh_database())
    yield store
    store.close()


def test_a_client_holds_at_most_its_share_of_leases(store: Store) -> None:
    one, two = ClusterShare(store, share=1, slots=2), ClusterShare(store, share=1, slots=2)
    first = one.take("203.0.113.1")
    assert first is not None
    assert two.take("203.0.113.1") is None  # from another node as from this one
    assert one.take("203.0.113.1") is None
    other = two.take("203.0.113.2")
    assert other is not None
    one.give_back(first)
    again = two.take("203.0.113.1")
    assert again is not None
    for lease in (other, again):
        two.give_back(lease)
    one.close()
    two.close()


def test_a_node_that_dies_frees_its_leases_at_once(store: Store) -> None:
    dying, alive = ClusterShare(store, share=1, slots=1), ClusterShare(store, share=1, slots=1)
    held = dying.take("203.0.113.3")
    assert held is not None and alive.take("203.0.113.3") is None
    held.connection.invalidate()  # its connection closed, as when its process is killed
    dying.close()
    lease = alive.take("203.0.113.3")
    assert lease is not None
    alive.give_back(lease)
    alive.close()


def node(store: Store, cluster: bool) -> Admission:
    return Admission(
        32,
        slots=2,
        client_share=1,
        client_pending=8,
        learner_pending=4,
        cluster=ClusterShare(store, share=1, slots=2) if cluster else None,
    )


@pytest.mark.parametrize(
    "cluster", [True, pytest.param(False, marks=pytest.mark.xfail(strict=True))]
)
def test_a_client_spread_over_two_nodes_still_holds_one_share(store: Store, cluster: bool) -> None:
    """Without the cluster share (the xfail case) each node would give the hog a slot."""
    one, two = node(store, cluster), node(store, cluster)
    with one.slot("hog", "h1") as running, two.slot("hog", "h2") as elsewhere:
        one.wait_turn(running, timeout=5)
        try:
            with pytest.raises(Unavailable, match="no grader became free"):
                two.wait_turn(elsewhere, timeout=0.5)
            assert two.running == 0  # the slot went back for others
            with two.slot("other", "o") as newcomer:
                two.wait_turn(newcomer, timeout=5)
                two.give_back(newcomer)
        finally:
            one.give_back(running)
