"""What the tool knows about a platform (a ``Registration``), and LTI Dynamic Registration,
which gets one without anyone copying URLs by hand: the platform opens the tool's
registration page with ``openid_configuration`` and ``registration_token``; the tool reads
the platform's configuration, posts its own, and keeps the client_id and deployment_id
the platform answers with.

The configuration URL comes from a browser: only an administrator's request should reach
``register`` (it makes the server fetch that URL).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

from app.lti import http
from app.lti.errors import LtiError, PlatformError

TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
)
CLAIMS = ("iss", "sub", "name", "given_name", "family_name", "email")


@dataclass(frozen=True)
class Registration:
    """One tool registration on one platform: ``issuer`` plus ``client_id`` name it."""

    issuer: str
    client_id: str
    deployment_ids: tuple[str, ...]
    auth_login_url: str  # the platform's OIDC authorization endpoint
    auth_token_url: str  # its OAuth2 token endpoint (AGS, NRPS)
    key_set_url: str  # its JWKS
    auth_token_audience: str | None = None  # the token endpoint's aud, when not its URL


class Registrations(Protocol):
    """Where registrations are kept."""

    def find(self, issuer: str, client_id: str | None = None) -> Registration | None:
        """The registration of ``issuer`` and ``client_id``; without a client_id, the
        issuer's only registration (None when it has none or several)."""
        ...


@dataclass(frozen=True)
class ToolSite:
    """Where the tool answers, as told to platforms."""

    base_url: str  # e.g. https://drill.example.org
    name: str = "Drill"
    description: str = "NumPy and PyTorch exercises, graded as you type"
    custom_parameters: dict[str, str] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    @property
    def login_url(self) -> str:
        return self.url("/lti/login")

    @property
    def launch_url(self) -> str:
        return self.url("/lti/launch")

    @property
    def jwks_url(self) -> str:
        return self.url("/lti/jwks")

    def client_registration(self) -> dict[str, Any]:
        """The body of the registration request (OpenID Connect Dynamic Client Registration
        with the LTI tool configuration claim)."""
        messages = [
            {"type": "LtiResourceLinkRequest", "target_link_uri": self.launch_url},
            {
                "type": "LtiDeepLinkingRequest",
                "target_link_uri": self.launch_url,
                "label": f"Add a {self.name} exercise",
            },
        ]
        return {
            "application_type": "web",
            "response_types": ["id_token"],
            "grant_types": ["implicit", "client_credentials"],
            "initiate_login_uri": self.login_url,
            "redirect_uris": [self.launch_url],
            "client_name": self.name,
            "jwks_uri": self.jwks_url,
            "token_endpoint_auth_method": "private_key_jwt",
            "scope": " ".join(SCOPES),
            TOOL_CONFIGURATION: {
                "domain": urlsplit(self.base_url).netloc,
                "description": self.description,
                "target_link_uri": self.launch_url,
                "custom_parameters": self.custom_parameters,
                "claims": list(CLAIMS),
                "messages": messages,
            },
        }


def register(
    openid_configuration: str,
    registration_token: str | None,
    tool: ToolSite,
    *,
    client: httpx.Client | None = None,
) -> Registration:
    """Dynamic registration, start to end: read the platform's configuration, post the
    tool's, and return the registration to store. Raises ``LtiError`` (``PlatformError``
    when the platform could not be reached or refused)."""
    own = client is None
    client = client or http.new_client()
    auth = {"Authorization": f"Bearer {registration_token}"} if registration_token else {}
    try:
        config = http.call(
            client,
            "GET",
            openid_configuration,
            what="reading the platform's OpenID configuration",
            headers={"Accept": "application/json", **auth},
        ).json_object()
        platform = _check_configuration(config, openid_configuration)
        answer = http.call(
            client,
            "POST",
            platform["registration_endpoint"],
            what="registering the tool",
            headers={"Accept": "application/json", **auth},
            json_body=tool.client_registration(),
        ).json_object()
    finally:
        if own:
            client.close()
    client_id = answer.get("client_id")
    if not isinstance(client_id, str) or not client_id:
        raise PlatformError("the platform's registration answer has no client_id", retryable=False)
    configuration = answer.get(TOOL_CONFIGURATION)
    deployment = configuration.get("deployment_id") if isinstance(configuration, dict) else None
    return Registration(
        issuer=platform["issuer"],
        client_id=client_id,
        deployment_ids=(str(deployment),) if deployment else (),
        auth_login_url=platform["authorization_endpoint"],
        auth_token_url=platform["token_endpoint"],
        key_set_url=platform["jwks_uri"],
        auth_token_audience=platform.get("authorization_server"),
    )


def _check_configuration(config: dict[str, Any], url: str) -> dict[str, str]:
    """The configuration's endpoints, once it is one the tool can work with."""
    needed = ("issuer", "authorization_endpoint", "token_endpoint", "jwks_uri")
    missing = [
        name
        for name in (*needed, "registration_endpoint")
        if not isinstance(config.get(name), str) or not config[name]
    ]
    if missing:
        raise LtiError(f"the platform's OpenID configuration lacks {', '.join(missing)}")
    # LTI-DR 3.5.1: the issuer must be on the site the configuration was read from.
    if http.origin(config["issuer"]) != http.origin(url):
        raise LtiError(
            f"the platform's issuer {config['issuer']} is not on the site of its "
            f"configuration URL {url}"
        )
    for claim, wanted in (
        ("id_token_signing_alg_values_supported", "RS256"),
        ("token_endpoint_auth_methods_supported", "private_key_jwt"),
    ):
        if claim in config and wanted not in (config[claim] or []):
            raise LtiError(f"the platform does not support {wanted} ({claim})")
    endpoints = {name: str(config[name]) for name in (*needed, "registration_endpoint")}
    if isinstance(config.get("authorization_server"), str):
        endpoints["authorization_server"] = config["authorization_server"]
    return endpoints
