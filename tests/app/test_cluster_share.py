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
    share = ClusterShare(store, share=1)
    first = share.take("203.0.113.1", ttl=60)
    assert first is not None
    assert share.take("203.0.113.1", ttl=60) is None  # from any node
    other = share.take("203.0.113.2", ttl=60)
    assert other is not None
    share.give_back(first)
    again = share.take("203.0.113.1", ttl=60)
    assert again is not None
    for lease in (other, again):
        share.give_back(lease)


def test_a_lease_of_a_node_that_died_frees_itself(store: Store) -> None:
    share = ClusterShare(store, share=1)
    assert share.take("203.0.113.3", ttl=0) is not None  # never given back
    lease = share.take("203.0.113.3", ttl=60)
    assert lease is not None
    share.give_back(lease)


def node(store: Store, cluster: bool) -> Admission:
    return Admission(
        32,
        slots=2,
        client_share=1,
        client_pending=8,
        learner_pending=4,
        cluster=ClusterShare(store, share=1) if cluster else None,
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
