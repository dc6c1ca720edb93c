"""OIDC third-party-initiated login, the first leg of every launch: the platform sends the
browser to ``/lti/login`` naming itself (``iss``), the user (``login_hint``) and where the
launch should land; the tool answers with a redirect to the platform's authorization
endpoint carrying a fresh ``state`` and ``nonce``. The platform then posts the signed
id_token to the launch URL, which checks that its nonce is the one made here.

The request is cross-site by design (principle 10): nothing is trusted from it but the
choice of a known registration, and ``target_link_uri`` must be on the tool's own site.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlencode

from app.lti import http
from app.lti.errors import LtiError
from app.lti.registration import Registration, Registrations, ToolSite

LOGIN_LIFETIME = 600.0  # seconds between the login redirect and the launch
MAX_PARAMETER = 2048  # characters in one login parameter


@dataclass(frozen=True)
class PendingLogin:
    """A login on its way: the launch that ends it must carry ``nonce`` and come with
    ``state``. Keep it until ``expires_at`` (epoch seconds), then forget it."""

    state: str
    nonce: str
    issuer: str
    client_id: str
    target_link_uri: str
    expires_at: float


class LoginStates(Protocol):
    """Where pending logins wait for their launch (server side: a cookie may be blocked in
    an iframe). ``take`` hands a state out once, and never after it expired."""

    def put(self, pending: PendingLogin) -> None: ...

    def take(self, state: str, now: float) -> PendingLogin | None: ...


@dataclass(frozen=True)
class LoginRedirect:
    url: str  # send the browser there (302, or a page that follows it)
    pending: PendingLogin  # save it (LoginStates.put) before redirecting
    registration: Registration


def begin_login(
    params: Mapping[str, str],
    registrations: Registrations,
    tool: ToolSite,
    *,
    now: float | None = None,
) -> LoginRedirect:
    """Check the login initiation (query or form parameters) and build the redirect to
    the platform's authorization endpoint. Raises ``LtiError`` saying what was wrong."""
    issuer = _required(params, "iss")
    login_hint = _required(params, "login_hint")
    target = _required(params, "target_link_uri")
    message_hint = _optional(params, "lti_message_hint")
    client_id = _optional(params, "client_id")
    deployment = _optional(params, "lti_deployment_id")

    registration = registrations.find(issuer, client_id)
    if registration is None:
        who = f"platform {issuer}" + (f" with client_id {client_id}" if client_id else "")
        raise LtiError(f"the login comes from {who}, which is not registered with this tool")
    if deployment is not None and deployment not in registration.deployment_ids:
        raise LtiError(f"the login names deployment {deployment}, unknown for platform {issuer}")
    if http.origin(target) != http.origin(tool.base_url):
        raise LtiError(f"the login's target_link_uri {target} is not on this tool's site")

    pending = PendingLogin(
        state=secrets.token_urlsafe(32),
        nonce=secrets.token_urlsafe(32),
        issuer=registration.issuer,
        client_id=registration.client_id,
        target_link_uri=target,
        expires_at=(time.time() if now is None else now) + LOGIN_LIFETIME,
    )
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": registration.client_id,
        "redirect_uri": tool.launch_url,
        "login_hint": login_hint,
        "state": pending.state,
        "nonce": pending.nonce,
    }
    if message_hint is not None:
        query["lti_message_hint"] = message_hint
    separator = "&" if "?" in registration.auth_login_url else "?"
    return LoginRedirect(
        f"{registration.auth_login_url}{separator}{urlencode(query)}", pending, registration
    )


def take_pending(states: LoginStates, state: str | None, now: float | None = None) -> PendingLogin:
    """The pending login a launch's ``state`` belongs to, used up; ``LtiError`` when the
    state is missing, unknown, already used or too old."""
    if not state:
        raise LtiError("the launch has no state: it did not start with this tool's login")
    pending = states.take(state, time.time() if now is None else now)
    if pending is None:
        raise LtiError(
            "the launch's state is unknown, expired or already used: start again from the course"
        )
    return pending


def _required(params: Mapping[str, str], name: str) -> str:
    value = _optional(params, name)
    if value is None:
        raise LtiError(f"the login request lacks the {name} parameter")
    return value


def _optional(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name) or None
    if value is not None and len(value) > MAX_PARAMETER:
        raise LtiError(f"the login request's {name} is over {MAX_PARAMETER} characters")
    return value
