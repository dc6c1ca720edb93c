"""The answer to a Deep Linking request: the instructor picked exercises in Drill, and the
tool sends them back to the course as LTI resource links (each with a gradebook column),
in a JWT signed with the tool's key that the browser posts to the platform's return URL
(form field ``JWT``), since the request came to the tool in the browser.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.lti.errors import LtiError
from app.lti.keys import ToolKey
from app.lti.launch import DEEP_LINKING_REQUEST, LTI, VERSION, Launch
from app.lti.services import LineItem

DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
RESPONSE_LIFETIME = 600  # seconds


@dataclass(frozen=True)
class ResourceLink:
    """One content item of type ltiResourceLink: an exercise track to launch."""

    title: str
    url: str  # the launch URL the platform will use for it
    custom: dict[str, str] = field(default_factory=dict)  # e.g. {"exercise": slug, "track": t}
    line_item: LineItem | None = None
    text: str | None = None

    def as_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {"type": "ltiResourceLink", "title": self.title, "url": self.url}
        if self.text:
            item["text"] = self.text
        if self.custom:
            item["custom"] = dict(self.custom)
        if self.line_item:
            item["lineItem"] = self.line_item.as_json()
        return item


@dataclass(frozen=True)
class DeepLinkingResponse:
    return_url: str  # where the browser posts the form
    jwt: str

    @property
    def fields(self) -> dict[str, str]:
        """The auto-submitting form's fields."""
        return {"JWT": self.jwt}


def deep_linking_response(
    launch: Launch,
    items: Sequence[ResourceLink],
    key: ToolKey,
    *,
    message: str | None = None,
    now: float | None = None,
) -> DeepLinkingResponse:
    """The signed response to the deep linking ``launch``. Refuses (``LtiError``) items
    the platform said it does not accept."""
    settings = launch.deep_linking
    if launch.message_type != DEEP_LINKING_REQUEST or settings is None:
        raise LtiError("this launch is not a deep linking request")
    if items and "ltiResourceLink" not in settings.accept_types:
        raise LtiError("the platform does not accept LTI resource links here")
    if len(items) > 1 and not settings.accept_multiple:
        raise LtiError("the platform accepts only one item here")
    issued = int(time.time() if now is None else now)
    claims: dict[str, Any] = {
        "iss": launch.client_id,
        "aud": launch.issuer,
        "iat": issued,
        "exp": issued + RESPONSE_LIFETIME,
        "nonce": secrets.token_urlsafe(24),
        LTI + "deployment_id": launch.deployment_id,
        LTI + "message_type": "LtiDeepLinkingResponse",
        LTI + "version": VERSION,
        DL + "content_items": [item.as_json() for item in items],
    }
    if settings.data is not None:
        claims[DL + "data"] = settings.data
    if message:
        claims[DL + "msg"] = message
    return DeepLinkingResponse(settings.deep_link_return_url, key.sign(claims))
