"""Deep Linking: the tool's signed response, posted as the browser would, is verified and
accepted by the platform (which reads the tool's key from its JWKS over HTTP)."""

from __future__ import annotations

import dataclasses

import httpx
import pytest
from joserfc import jwt

from app.lti.deep_linking import ResourceLink, deep_linking_response
from app.lti.errors import LtiError
from app.lti.launch import DeepLinkingSettings, Launch
from app.lti.services import LineItem
from tests.lti.conftest import Keys
from tests.lti.platform import DL, LTI, Platform
from tests.lti.tool import Tool


def exercises(tool: Tool) -> list[ResourceLink]:
    return [
        ResourceLink(
            title=f"Gradient checkpointing ({track})",
            url=tool.site.launch_url,
            custom={"exercise": "gradient-checkpointing", "track": track},
            line_item=LineItem(
                f"Gradient checkpointing ({track})", 6, f"gradient-checkpointing/{track}"
            ),
        )
        for track in ("numpy", "torch")
    ]


def deep_launch(platform: Platform, tool: Tool) -> Launch:
    return tool.validate(platform.id_token("teacher", "deep"))


def test_the_deep_linking_response_is_accepted_by_the_platform(
    platform: Platform, tool: Tool, keys: Keys
) -> None:
    response = deep_linking_response(deep_launch(platform, tool), exercises(tool), keys.tool)
    assert response.return_url == f"{platform.base}/deep-link-return"
    assert set(response.fields) == {"JWT"}

    answer = httpx.post(response.return_url, data=response.fields)
    assert answer.status_code == 200, answer.text
    (claims,) = platform.deep_links
    assert claims["iss"] == platform.client_id and claims["aud"] == platform.base
    assert claims[LTI + "message_type"] == "LtiDeepLinkingResponse"
    assert claims[LTI + "version"] == "1.3.0"
    assert claims[LTI + "deployment_id"] == platform.deployment_id
    assert claims[DL + "data"] == "opaque-platform-data"
    assert claims[DL + "content_items"][0] == {
        "type": "ltiResourceLink",
        "title": "Gradient checkpointing (numpy)",
        "url": tool.site.launch_url,
        "custom": {"exercise": "gradient-checkpointing", "track": "numpy"},
        "lineItem": {
            "label": "Gradient checkpointing (numpy)",
            "scoreMaximum": 6,
            "resourceId": "gradient-checkpointing/numpy",
        },
    }
    assert len(claims[DL + "content_items"]) == 2
    assert jwt.decode(response.jwt, keys.tool.key).header["kid"] == keys.tool.kid


def test_a_response_signed_by_a_key_the_tool_does_not_publish_is_refused(
    platform: Platform, tool: Tool, keys: Keys
) -> None:
    """The platform really checks: the same response signed by another key fails."""
    response = deep_linking_response(deep_launch(platform, tool), exercises(tool), keys.stranger)
    assert httpx.post(response.return_url, data=response.fields).status_code == 400
    assert platform.deep_links == []


def test_items_the_platform_does_not_accept_are_refused(
    platform: Platform, tool: Tool, keys: Keys
) -> None:
    launch = deep_launch(platform, tool)
    assert launch.deep_linking is not None
    only_files = dataclasses.replace(launch.deep_linking, accept_types=("file",))
    with pytest.raises(LtiError, match="does not accept LTI resource links"):
        deep_linking_response(
            dataclasses.replace(launch, deep_linking=only_files), exercises(tool), keys.tool
        )
    one = dataclasses.replace(launch.deep_linking, accept_multiple=False)
    with pytest.raises(LtiError, match="accepts only one item"):
        deep_linking_response(
            dataclasses.replace(launch, deep_linking=one), exercises(tool), keys.tool
        )
    deep_linking_response(
        dataclasses.replace(launch, deep_linking=one), exercises(tool)[:1], keys.tool
    )


def test_a_resource_link_launch_cannot_be_answered_with_deep_links(
    platform: Platform, tool: Tool, keys: Keys
) -> None:
    launch = tool.validate(platform.id_token())
    with pytest.raises(LtiError, match="not a deep linking request"):
        deep_linking_response(launch, exercises(tool), keys.tool)


def test_a_response_without_data_leaves_the_claim_out(
    platform: Platform, tool: Tool, keys: Keys
) -> None:
    launch = deep_launch(platform, tool)
    settings = DeepLinkingSettings(f"{platform.base}/deep-link-return", ("ltiResourceLink",))
    response = deep_linking_response(
        dataclasses.replace(launch, deep_linking=settings), [], keys.tool, message="Nothing picked"
    )
    claims = jwt.decode(response.jwt, keys.tool.key).claims
    assert DL + "data" not in claims and claims[DL + "content_items"] == []
    assert claims[DL + "msg"] == "Nothing picked"
    assert httpx.post(response.return_url, data=response.fields).status_code == 200
