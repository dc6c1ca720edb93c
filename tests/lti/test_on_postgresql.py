"""The LTI tests whose storage matters, again with Drill on PostgreSQL: a launch's rows,
nonces used once, the outbox's claims across restarts and nodes, a regrade's new score.
(The whole module runs on PostgreSQL with DRILL_TEST_DB=postgresql; this keeps these in
every run.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.lti.test_tool_routes import (  # noqa: F401  (the fixtures and tests run here)
    browser,
    drill,
    registered,
    test_a_launch_makes_the_account_course_membership_assignment_and_session,
    test_a_nonce_is_used_once_even_under_another_state,
    test_a_regrade_that_changes_the_verdict_sends_the_new_score,
    test_a_restart_sends_an_unsent_score_exactly_once,
    test_outbox_rows_left_by_a_node_that_died_mid_send_go_after_the_lease,
    test_submits_reach_the_platforms_gradebook,
    test_two_senders_on_one_database_send_each_score_once,
)


@pytest.fixture(autouse=True)
def _on_postgresql(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every Drill these tests start stores in a fresh PostgreSQL database."""
    monkeypatch.setenv("DRILL_TEST_DB", "postgresql")
    yield


def test_these_run_on_postgresql(drill: object) -> None:  # noqa: F811
    assert drill.store.dialect == "postgresql"  # type: ignore[attr-defined]
