"""AGS and NRPS against the test platform: tokens (the platform verifies the tool's signed
assertion with the tool's JWKS, read over HTTP), line items, scores, members, and the
errors that say whether a retry can help."""

from __future__ import annotations

import re
import time
from contextlib import closing
from datetime import UTC, datetime, timedelta, timezone

import pytest
from joserfc import jwt

from app.lti import http
from app.lti.errors import PlatformError
from app.lti.keys import ToolKey
from app.lti.registration import Registration
from app.lti.services import (
    SCOPE_LINEITEM,
    SCOPE_MEMBERSHIPS,
    SCOPE_SCORE,
    LineItem,
    PlatformServices,
    Score,
)
from tests.lti.conftest import Keys
from tests.lti.platform import USERS, Platform

WHEN = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def lineitem(platform: Platform) -> str:
    return f"{platform.base}/ags/lineitems/1"


def test_an_access_token_is_granted_on_a_verified_assertion(
    platform: Platform, registration: Registration, services: PlatformServices, keys: Keys
) -> None:
    token = services.access_token(registration, [SCOPE_SCORE])
    assert platform.tokens[token][0] == {SCOPE_SCORE}
    (assertion,) = platform.assertions  # the platform checked its signature
    assert assertion["iss"] == assertion["sub"] == platform.client_id
    assert assertion["aud"] == f"{platform.base}/token"
    assert assertion["exp"] - assertion["iat"] == 300 and assertion["jti"]


def test_an_assertion_the_tools_jwks_does_not_vouch_for_is_refused(
    registration: Registration, keys: Keys
) -> None:
    with (
        closing(PlatformServices(keys.stranger)) as stranger,
        pytest.raises(PlatformError, match="answered 401 to asking for an access token") as error,
    ):
        stranger.access_token(registration, [SCOPE_SCORE])
    assert not error.value.retryable


def test_the_assertion_is_addressed_to_the_token_audience_when_there_is_one(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    """The platform wants its token URL as aud: another audience is refused."""
    other = Registration(**{**registration.__dict__, "auth_token_audience": "https://as.example"})
    with pytest.raises(PlatformError, match="401"):
        services.access_token(other, [SCOPE_SCORE])


def test_tokens_are_cached_per_scope_until_shortly_before_they_expire(
    platform: Platform, registration: Registration, keys: Keys
) -> None:
    clock = [time.time()]  # the assertion's iat and exp come from it too
    with closing(PlatformServices(keys.tool, clock=lambda: clock[0])) as services:
        first = services.access_token(registration, [SCOPE_SCORE])
        assert services.access_token(registration, [SCOPE_SCORE]) == first
        assert services.access_token(registration, [SCOPE_LINEITEM]) != first
        clock[0] += 3600 - 61
        assert services.access_token(registration, [SCOPE_SCORE]) == first
        clock[0] += 2  # within a minute of its expiry: a new one
        assert services.access_token(registration, [SCOPE_SCORE]) != first
    assert len(platform.assertions) == 3


def test_a_score_is_posted_and_recorded(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    score = Score("sub-learner1", 5, 6, WHEN, comment="5 of 6 tests pass")
    services.post_score(registration, lineitem(platform), score)
    assert platform.scores == [
        {
            "lineitem": "1",
            "userId": "sub-learner1",
            "scoreGiven": 5,
            "scoreMaximum": 6,
            "activityProgress": "Completed",
            "gradingProgress": "FullyGraded",
            "timestamp": "2024-05-01T12:30:00+00:00",
            "comment": "5 of 6 tests pass",
        }
    ]


def test_a_line_item_url_with_a_query_gets_scores_in_its_path(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    services.post_score(registration, lineitem(platform) + "?type=x", Score("u", 1, 1, WHEN))
    assert [s["lineitem"] for s in platform.scores] == ["1"]


def test_a_score_timestamp_keeps_its_timezone_and_needs_one() -> None:
    paris = timezone(timedelta(hours=2))
    assert Score("u", 1, 1, WHEN.astimezone(paris)).as_json()["timestamp"].endswith("+02:00")
    with pytest.raises(ValueError, match="timezone"):
        Score("u", 1, 1, datetime(2024, 5, 1)).as_json()


def test_a_line_item_is_created_once_then_found(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    container = f"{platform.base}/ags/lineitems"
    item = LineItem("Gradient checkpointing (NumPy)", 6, "gradient-checkpointing/numpy", "drill")
    url = services.line_item(registration, container, item)
    assert services.line_item(registration, container, item) == url
    existing = LineItem("Existing", 10, "existing")
    assert services.line_item(registration, container, existing) == lineitem(platform)
    created = [i for i in platform.line_items.values() if i["id"] == url]
    assert created == [
        {
            "label": "Gradient checkpointing (NumPy)",
            "scoreMaximum": 6,
            "resourceId": "gradient-checkpointing/numpy",
            "tag": "drill",
            "id": url,
        }
    ]


@pytest.mark.parametrize(
    ("status", "retryable"), [(503, True), (500, True), (429, True), (400, False), (404, False)]
)
def test_a_platform_error_says_whether_a_retry_can_help(
    platform: Platform,
    registration: Registration,
    services: PlatformServices,
    status: int,
    retryable: bool,
) -> None:
    platform.fail_next = [status]
    with pytest.raises(PlatformError, match=f"answered {status} to posting the score") as error:
        services.post_score(registration, lineitem(platform), Score("u", 1, 1, WHEN))
    assert error.value.retryable is retryable and error.value.status == status
    assert platform.scores == []
    services.post_score(registration, lineitem(platform), Score("u", 1, 1, WHEN))
    assert len(platform.scores) == 1


def test_a_refused_token_is_forgotten_and_the_retry_gets_a_new_one(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    services.post_score(registration, lineitem(platform), Score("u", 1, 1, WHEN))
    platform.tokens.clear()  # the platform forgot every token it gave
    with pytest.raises(PlatformError, match="401") as error:
        services.post_score(registration, lineitem(platform), Score("u", 1, 1, WHEN))
    assert error.value.retryable
    services.post_score(registration, lineitem(platform), Score("u", 1, 1, WHEN))
    assert len(platform.scores) == 2 and len(platform.assertions) == 2


def test_a_timeout_and_a_lost_connection_are_retryable(
    platform: Platform, registration: Registration, keys: Keys
) -> None:
    with closing(PlatformServices(keys.tool, http.new_client(timeout=0.2))) as services:
        services.access_token(registration, [SCOPE_SCORE])
        platform.delay = 0.5
        with pytest.raises(
            PlatformError, match=r"did not answer posting the score .* in time"
        ) as late:
            services.post_score(registration, lineitem(platform), Score("u", 1, 1, WHEN))
        assert late.value.retryable
        with pytest.raises(PlatformError, match="could not reach the platform") as lost:
            services.post_score(registration, "http://127.0.0.1:9/item", Score("u", 1, 1, WHEN))
        assert lost.value.retryable


def test_members_are_read_across_every_page(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    members = services.members(registration, f"{platform.base}/nrps/memberships")
    assert [m.user_id for m in members] == [f"sub-{user}" for user in USERS]
    assert len(USERS) > 2 * platform.page_size  # three pages at least
    by_id = {m.user_id: m for m in members}
    assert by_id["sub-teacher"].role == "instructor"
    assert by_id["sub-assistant"].role == "assistant"
    assert by_id["sub-learner3"].role == "learner"
    assert (
        by_id["sub-learner3"].name == "Learner 3" and by_id["sub-learner3"].email == "l3@lms.test"
    )


def test_a_next_page_on_another_site_is_not_followed(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    """The bearer token goes with each page: it must not go to another site."""
    platform.foreign_next_link = True
    with pytest.raises(PlatformError, match=re.escape("next page of members is on another site")):
        services.members(registration, f"{platform.base}/nrps/memberships")


def test_a_token_only_asks_for_the_scope_the_call_needs(
    platform: Platform, registration: Registration, services: PlatformServices
) -> None:
    services.members(registration, f"{platform.base}/nrps/memberships")
    assert [scopes for scopes, _ in platform.tokens.values()] == [{SCOPE_MEMBERSHIPS}]


def test_the_tool_key_signs_with_its_kid(keys: Keys) -> None:
    token = keys.tool.sign({"a": 1})
    decoded = jwt.decode(token, ToolKey.from_pem(keys.tool.to_pem()).key, ["RS256"])
    assert decoded.header["kid"] == keys.tool.kid and decoded.claims == {"a": 1}
