"""The launch: a valid id_token is accepted and read; every forgery and every broken claim
is refused with its own message. Each refusal below fails if its guard is removed (a guard
that never fires would let the token through, or say something else)."""

from __future__ import annotations

import dataclasses
import re
import time
from contextlib import closing
from typing import Any

import pytest
from joserfc import jwt

from app.lti.errors import LtiError, PlatformError
from app.lti.launch import AgsEndpoint, Context, DeepLinkingSettings, validate_launch
from app.lti.memory import MemoryNonces, MemoryRegistrations
from app.lti.platform_keys import PlatformKeys
from app.lti.roles import TEACHING_ASSISTANT, course_role
from tests.lti.conftest import Keys
from tests.lti.platform import CLIENT_ID, INSTRUCTOR, LEARNER, LTI, Platform
from tests.lti.tool import Tool


def test_a_valid_resource_link_launch_is_accepted_and_read(platform: Platform, tool: Tool) -> None:
    launch = tool.validate(platform.id_token("learner1", nonce="n-1"), expected_nonce="n-1")

    assert launch.message_type == "LtiResourceLinkRequest"
    assert (launch.issuer, launch.client_id) == (platform.base, platform.client_id)
    assert launch.deployment_id == platform.deployment_id
    assert launch.subject == "sub-learner1"
    assert (launch.name, launch.email) == ("Learner 1", "l1@lms.test")
    assert launch.role == "learner" and launch.roles == (LEARNER,)
    assert launch.context == Context("course-101", "Deep Learning", "ML101")
    assert launch.resource_link_id == "link-1"
    assert launch.target_link_uri == tool.site.launch_url
    assert launch.custom == {"exercise": "gradient-checkpointing", "track": "numpy"}
    assert launch.ags == AgsEndpoint(
        scope=tuple(
            f"https://purl.imsglobal.org/spec/lti-ags/scope/{s}"
            for s in ("lineitem", "score", "result.readonly")
        ),
        lineitems=f"{platform.base}/ags/lineitems",
        lineitem=f"{platform.base}/ags/lineitems/1",
    )
    assert launch.memberships_url == f"{platform.base}/nrps/memberships"
    assert launch.deep_linking is None


def test_a_valid_deep_linking_launch_is_accepted_and_read(platform: Platform, tool: Tool) -> None:
    launch = tool.validate(platform.id_token("teacher", "deep"))
    assert launch.message_type == "LtiDeepLinkingRequest"
    assert launch.role == "instructor"
    assert launch.resource_link_id is None
    assert launch.deep_linking == DeepLinkingSettings(
        deep_link_return_url=f"{platform.base}/deep-link-return",
        accept_types=("ltiResourceLink",),
        accept_multiple=True,
        data="opaque-platform-data",
    )


def test_an_audience_list_with_azp_naming_the_tool_is_accepted(
    platform: Platform, tool: Tool
) -> None:
    token = platform.id_token(
        audience=["another-client", platform.client_id], changes={"azp": platform.client_id}
    )
    assert tool.validate(token).client_id == platform.client_id


def now() -> int:
    return int(time.time())


REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    # (what, platform.id_token arguments, the message)
    ("forged", {"signing": "other"}, "the launch's signature does not match the platform's keys"),
    ("alg none", {"signing": "none"}, "alg none, an unsigned token; only RS256 is accepted"),
    ("HS256", {"signing": "HS256"}, "alg 'HS256'; only RS256 is accepted"),
    ("expired", {"expired": True}, "the launch expired at "),
    # A time is a function, read when the token is made: a value taken at import would be an
    # hour in the past once a slow suite reaches it.
    ("issued in the future", {"changes": {"iat": lambda: now() + 3600}}, "issued in the future"),
    ("no exp", {"drop": ["exp"]}, "no valid expiry (exp)"),
    ("NaN exp", {"changes": {"exp": float("nan")}}, "no valid expiry (exp)"),
    ("no iat", {"drop": ["iat"]}, "no valid issue time (iat)"),
    (
        "wrong aud",
        {"audience": "another-client"},
        "client_id 'another-client', which is not registered",
    ),
    ("aud list without azp", {"audience": ["another", CLIENT_ID]}, "several audiences and no azp"),
    ("azp not an audience", {"changes": {"azp": "another"}}, "azp 'another' is not its audience"),
    (
        "unknown issuer",
        {"changes": {"iss": "https://lms.example.com"}},
        "not registered for platform https://lms.example.com",
    ),
    ("no nonce", {"drop": ["nonce"]}, "the launch has no nonce"),
    (
        "unknown deployment",
        {"changes": {LTI + "deployment_id": "deployment-9"}},
        "deployment deployment-9 is not registered",
    ),
    ("no deployment", {"drop": [LTI + "deployment_id"]}, "the launch has no deployment_id"),
    (
        "message type",
        {"changes": {LTI + "message_type": "LtiSubmission"}},
        "type 'LtiSubmission' is not one",
    ),
    ("version", {"changes": {LTI + "version": "1.1"}}, "LTI version '1.1'; this tool speaks 1.3.0"),
    ("no sub", {"drop": ["sub"]}, "the launch names no user (sub)"),
    ("no roles", {"drop": [LTI + "roles"]}, "the launch has no roles claim"),
    (
        "no resource link",
        {"drop": [LTI + "resource_link"]},
        "the resource link launch has no resource_link id",
    ),
    ("no target", {"drop": [LTI + "target_link_uri"]}, "the launch has no target_link_uri"),
]


@pytest.mark.parametrize(
    ("arguments", "message"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_a_bad_launch_is_refused_with_its_message(
    platform: Platform, tool: Tool, arguments: dict[str, Any], message: str
) -> None:
    changes = {k: v() if callable(v) else v for k, v in arguments.get("changes", {}).items()}
    with pytest.raises(LtiError, match=re.escape(message)):
        tool.validate(platform.id_token(**{**arguments, "changes": changes}))
    # The same launch, made right, passes: the refusal came from the one thing changed.
    tool.validate(platform.id_token())


def test_a_deep_linking_request_without_its_settings_is_refused(
    platform: Platform, tool: Tool
) -> None:
    settings = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
    with pytest.raises(LtiError, match="no deep_link_return_url"):
        tool.validate(platform.id_token("teacher", "deep", drop=[settings]))


def test_a_launch_used_twice_is_refused(platform: Platform, tool: Tool) -> None:
    token = platform.id_token()
    tool.validate(token)
    with pytest.raises(
        LtiError, match=re.escape("this launch was already used (nonce seen before)")
    ):
        tool.validate(token)


def test_another_launch_reusing_a_nonce_is_refused(platform: Platform, tool: Tool) -> None:
    tool.validate(platform.id_token("learner1", nonce="same"))
    with pytest.raises(LtiError, match="already used"):
        tool.validate(platform.id_token("learner2", nonce="same"))


def test_a_refused_launch_does_not_use_up_its_nonce(platform: Platform, tool: Tool) -> None:
    with pytest.raises(LtiError, match="deployment"):
        tool.validate(platform.id_token(nonce="n", changes={LTI + "deployment_id": "d-9"}))
    tool.validate(platform.id_token(nonce="n"))


def test_a_launch_within_the_leeway_is_accepted(platform: Platform, tool: Tool) -> None:
    token = platform.id_token(changes={"iat": now() + 30, "exp": now() - 30})
    assert tool.validate(token).subject == "sub-learner1"


def test_the_platform_keys_are_cached_and_refetched_on_a_new_kid(
    keys: Keys, platform: Platform, tool: Tool
) -> None:
    tool.validate(platform.id_token())
    tool.validate(platform.id_token())
    assert platform.jwks_fetches == 1
    platform.rotate(keys.rotated)
    tool.validate(platform.id_token())  # a kid the cache lacks: fetched again, once
    tool.validate(platform.id_token())
    assert platform.jwks_fetches == 2


def test_an_unknown_kid_is_refused_after_one_refetch(platform: Platform, tool: Tool) -> None:
    tool.validate(platform.id_token())
    token = jwt.encode({"alg": "RS256", "kid": "nobody"}, platform.launch_claims(), platform.key)
    with pytest.raises(LtiError, match=re.escape("signing key (kid 'nobody') is not among")):
        tool.validate(token)
    assert platform.jwks_fetches == 2


def test_made_up_kids_cost_one_refetch_per_interval(platform: Platform, tool: Tool) -> None:
    clock = [1000.0]
    url = platform.registration().key_set_url
    with closing(PlatformKeys(min_refetch=10, clock=lambda: clock[0])) as cache:
        cache.key(url, "platform-1")
        for _ in range(3):
            with pytest.raises(LtiError, match="not among"):
                cache.key(url, "made-up")
        assert platform.jwks_fetches == 1
        clock[0] += 10
        with pytest.raises(LtiError, match="not among"):
            cache.key(url, "made-up")
        assert platform.jwks_fetches == 2


def test_the_cached_keys_expire_after_their_ttl(platform: Platform) -> None:
    clock = [0.0]
    url = platform.registration().key_set_url
    with closing(PlatformKeys(ttl=300, clock=lambda: clock[0])) as cache:
        cache.key(url, "platform-1")
        clock[0] = 299
        cache.key(url, "platform-1")
        assert platform.jwks_fetches == 1
        clock[0] = 300
        cache.key(url, "platform-1")
        assert platform.jwks_fetches == 2


@pytest.mark.parametrize(
    ("key_set_url", "message", "retryable"),
    [
        ("{base}/nowhere", "answered 404 to fetching the platform's keys", False),
        ("http://127.0.0.1:9/jwks", "could not reach the platform for fetching", True),
        ("{base}/course", "is not JSON", False),
    ],
)
def test_keys_that_cannot_be_fetched_refuse_the_launch(
    platform: Platform, tool: Tool, key_set_url: str, message: str, retryable: bool
) -> None:
    url = key_set_url.format(base=platform.base)
    registration = dataclasses.replace(platform.registration(), key_set_url=url)
    with pytest.raises(PlatformError, match=message) as refused:
        validate_launch(
            platform.id_token(),
            registrations=MemoryRegistrations([registration]),
            platform_keys=tool.platform_keys,
            nonces=MemoryNonces(),
        )
    assert refused.value.retryable is retryable


def test_what_is_not_a_jwt_is_refused(tool: Tool) -> None:
    for garbage in ["", "abc", "a.b.c", "e30.e30", "x" * 200_000]:
        with pytest.raises(LtiError):
            tool.validate(garbage)


@pytest.mark.parametrize(
    ("roles", "role"),
    [
        ([INSTRUCTOR], "instructor"),
        (["Instructor"], "instructor"),
        ([TEACHING_ASSISTANT, INSTRUCTOR], "assistant"),
        ([LEARNER], "learner"),
        (["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"], "learner"),
        ([], "learner"),
    ],
)
def test_roles_map_to_course_roles(roles: list[str], role: str) -> None:
    assert course_role(roles) == role
