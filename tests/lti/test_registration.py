"""Dynamic registration against the test platform, and the tool's key pair."""

from __future__ import annotations

import json

import httpx
import pytest

from app.lti.errors import LtiError, PlatformError
from app.lti.keys import ToolKey, jwks
from app.lti.registration import SCOPES, TOOL_CONFIGURATION, ToolSite, register
from tests.lti.conftest import Keys
from tests.lti.platform import Platform
from tests.lti.tool import Tool

SITE = ToolSite("https://drill.example.org")


def test_dynamic_registration_round_trip(platform: Platform) -> None:
    url = f"{platform.base}/.well-known/openid-configuration"
    registration = register(url, platform.registration_token, SITE)

    assert registration == platform.registration()
    (sent,) = platform.registrations
    assert sent["initiate_login_uri"] == "https://drill.example.org/lti/login"
    assert sent["redirect_uris"] == ["https://drill.example.org/lti/launch"]
    assert sent["jwks_uri"] == "https://drill.example.org/lti/jwks"
    assert sent["token_endpoint_auth_method"] == "private_key_jwt"
    assert set(sent["scope"].split()) == set(SCOPES)
    configuration = sent[TOOL_CONFIGURATION]
    assert configuration["domain"] == "drill.example.org"
    assert configuration["target_link_uri"] == "https://drill.example.org/lti/launch"
    assert {"iss", "sub", "name", "email"} <= set(configuration["claims"])
    assert [m["type"] for m in configuration["messages"]] == [
        "LtiResourceLinkRequest",
        "LtiDeepLinkingRequest",
    ]


def test_a_configuration_whose_issuer_is_on_another_site_is_refused(platform: Platform) -> None:
    platform.issuer_override = "https://evil.example.com"
    url = f"{platform.base}/.well-known/openid-configuration"
    with pytest.raises(LtiError, match="not on the site of its configuration URL"):
        register(url, platform.registration_token, SITE)
    assert platform.registrations == []


def test_a_wrong_registration_token_is_a_refusal_not_worth_retrying(platform: Platform) -> None:
    url = f"{platform.base}/.well-known/openid-configuration"
    with pytest.raises(PlatformError, match="answered 401") as refused:
        register(url, "not-the-token", SITE)
    assert not refused.value.retryable


def test_the_key_round_trips_through_pem_and_jwk_json_with_its_kid() -> None:
    key = ToolKey.generate()
    assert key.key.raw_value.key_size == 2048
    assert ToolKey.from_pem(key.to_pem()).kid == key.kid
    assert ToolKey.from_jwk_json(key.to_jwk_json()).kid == key.kid
    assert ToolKey.generate(kid="2024-01").kid == "2024-01"


def test_the_jwks_publishes_public_keys_only(keys: Keys) -> None:
    (published,) = jwks(keys.tool)["keys"]
    assert published["kid"] == keys.tool.kid
    assert published["alg"] == "RS256" and published["use"] == "sig"
    assert {"n", "e"} <= published.keys() and "d" not in published
    assert "PRIVATE" not in json.dumps(published)


def test_the_jwks_is_served_to_the_platform(keys: Keys, tool: Tool) -> None:
    answer = httpx.get(tool.site.jwks_url)
    assert answer.json() == jwks(keys.tool)
