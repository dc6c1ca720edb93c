"""The fair queue in front of the graders (app/admission.py), without a sandbox: who is
admitted, who holds a slot, who is served next. Threads stand in for grading threads."""

from __future__ import annotations

import threading
from contextlib import ExitStack

import pytest

from app.admission import Admission, Ticket
from app.errors import RateLimited, Unavailable


def admission(
    slots: int = 2, share: int = 1, limit: int = 32, client: int = 8, learner: int = 4
) -> Admission:
    return Admission(
        limit, slots=slots, client_share=share, client_pending=client, learner_pending=learner
    )


def granted_now(gate: Admission, ticket: Ticket) -> bool:
    """Ask for a turn without waiting; a ticket left waiting stays in the queue."""
    try:
        gate.wait_turn(ticket, timeout=0)
    except Unavailable:
        with gate._lock:  # back in line, as a grading thread that still waits would be
            gate._waiting.append(ticket)
        return False
    return True


def test_one_client_cannot_hold_more_than_its_share_of_the_slots() -> None:
    gate = admission(slots=2, share=1)
    with ExitStack() as held:
        first = held.enter_context(gate.slot("hog", "h1"))
        second = held.enter_context(gate.slot("hog", "h2"))  # another learner, same address
        assert granted_now(gate, first)
        assert not granted_now(gate, second), "the hog took the last free slot"
        other = held.enter_context(gate.slot("other", "o1"))
        assert granted_now(gate, other), "a newcomer waited while a slot was free"
        assert gate.running == 2


def test_a_freed_slot_goes_to_the_client_holding_fewest_not_the_earliest() -> None:
    gate = admission(slots=1, share=1)
    order: list[str] = []

    def submit(client: str, learner: str) -> None:
        with gate.slot(client, learner) as ticket:
            gate.wait_turn(ticket, timeout=30)
            order.append(client)  # graded at once: the slot ends and is handed on

    threads = []
    with gate.slot("hog", "h0") as running:
        gate.wait_turn(running, timeout=1)
        for client, learner in [("hog", "h1"), ("hog", "h2"), ("hog", "h3"), ("other", "o")]:
            thread = threading.Thread(target=submit, args=(client, learner))
            thread.start()
            threads.append(thread)
            while len(gate._waiting) < len(threads):  # queued in this order
                threading.Event().wait(0.005)
    for thread in threads:
        thread.join(timeout=10)
    # First come, first served would give ["hog", "hog", "hog", "other"].
    assert order == ["other", "hog", "hog", "hog"]


def test_learners_behind_one_address_take_turns() -> None:
    gate = admission(slots=1, share=1)
    with gate.slot("lab", "alice") as alice_later, gate.slot("lab", "bob") as bob:
        with gate.slot("lab", "alice") as alice_first:
            gate.wait_turn(alice_first, timeout=1)
            assert not granted_now(gate, alice_later)
            assert not granted_now(gate, bob)
        # Alice came first twice, but she was just served: Bob's turn.
        assert bob.granted and not alice_later.granted


@pytest.mark.parametrize(
    ("who", "expected"),
    [
        ({"client": "hog", "learner": "new"}, "submissions from your address"),
        ({"client": "elsewhere", "learner": "h0"}, "you already have 2 submissions"),
    ],
)
def test_pending_caps_per_client_and_per_learner_answer_429(
    who: dict[str, str], expected: str
) -> None:
    gate = admission(client=3, learner=2)
    with ExitStack() as held:
        held.enter_context(gate.slot("hog", "h0"))
        held.enter_context(gate.slot("hog", "h0"))
        held.enter_context(gate.slot("hog", "h1"))
        with pytest.raises(RateLimited) as refused:
            held.enter_context(gate.slot(**who))
        assert expected in refused.value.message
        assert refused.value.retry_after and refused.value.retry_after > 0
        assert gate.pending == 3  # the refusal took no place
    assert gate.pending == 0 and not gate._waiting


def test_the_whole_queue_is_bounded_with_503() -> None:
    gate = admission(limit=2)
    with (
        gate.slot("a", "a"),
        gate.slot("b", "b"),
        pytest.raises(Unavailable, match="at capacity"),
        gate.slot("c", "c"),
    ):
        pass


def test_a_wait_that_times_out_leaves_the_queue_and_says_so() -> None:
    gate = admission(slots=1, share=1)
    with gate.slot("a", "a") as first, gate.slot("b", "b") as second:
        gate.wait_turn(first, timeout=1)
        with pytest.raises(Unavailable, match="no grader became free"):
            gate.wait_turn(second, timeout=0.05)
        assert not gate._waiting
    assert gate.running == 0 and gate.pending == 0


def test_a_slot_ends_hands_its_place_on() -> None:
    gate = admission(slots=1, share=1)
    with gate.slot("b", "b") as waiting:
        with gate.slot("a", "a") as first:
            gate.wait_turn(first, timeout=1)
            assert not granted_now(gate, waiting)
        assert waiting.granted  # handed over when the first one's slot ended
    assert gate.running == 0
