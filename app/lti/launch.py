"""The launch: the platform posts a signed id_token to ``/lti/launch`` and the tool decides
whether to believe it. Believed, it becomes a typed ``Launch``; refused, an ``LtiError``
says what was wrong.

Order matters: the algorithm is checked before any key is touched (RS256 only: ``none`` and
HS256 with the platform's public key as secret are the classic forgeries), the signature
before any claim is believed, and the nonce is used up last, so only a launch that passed
everything else spends it.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, TypeGuard

from joserfc import jwt
from joserfc.errors import BadSignatureError, JoseError

from app.lti.errors import LtiError
from app.lti.platform_keys import PlatformKeys
from app.lti.registration import Registration, Registrations
from app.lti.roles import CourseRole, course_role

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
VERSION = "1.3.0"
RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
LEEWAY = 60  # seconds of clock skew allowed between the platform and the tool
MAX_TOKEN = 128 * 1024  # characters of an id_token

MessageType = Literal["LtiResourceLinkRequest", "LtiDeepLinkingRequest"]


class NonceStore(Protocol):
    """Nonces already seen, kept until their token expires."""

    def use_once(self, nonce: str, expires_at: float) -> bool:
        """True the first time ``nonce`` is used, False ever after (until ``expires_at``,
        epoch seconds, after which its token is refused as expired anyway)."""
        ...


@dataclass(frozen=True)
class Context:
    id: str
    title: str | None = None
    label: str | None = None


@dataclass(frozen=True)
class AgsEndpoint:
    scope: tuple[str, ...]
    lineitems: str | None = None  # the context's line item container
    lineitem: str | None = None  # this resource link's own line item


@dataclass(frozen=True)
class DeepLinkingSettings:
    deep_link_return_url: str
    accept_types: tuple[str, ...]
    accept_multiple: bool = True
    data: str | None = None  # opaque: echoed back in the response


@dataclass(frozen=True)
class Launch:
    message_type: MessageType
    issuer: str
    client_id: str
    deployment_id: str
    subject: str  # the user's id on the platform (sub)
    role: CourseRole
    roles: tuple[str, ...]
    target_link_uri: str
    name: str | None = None
    email: str | None = None
    context: Context | None = None
    resource_link_id: str | None = None
    custom: dict[str, str] = field(default_factory=dict)
    ags: AgsEndpoint | None = None
    memberships_url: str | None = None  # NRPS context_memberships_url
    deep_linking: DeepLinkingSettings | None = None


def validate_launch(
    id_token: str,
    *,
    registrations: Registrations,
    platform_keys: PlatformKeys,
    nonces: NonceStore,
    expected_nonce: str | None = None,
    now: float | None = None,
    leeway: float = LEEWAY,
) -> Launch:
    """The launch an id_token carries, once every check passed. ``expected_nonce`` is the
    nonce of this browser's pending login (``login.take_pending``), when the caller has it.
    Raises ``LtiError`` (``PlatformError`` when the platform's keys cannot be fetched)."""
    header, unverified = _peek(id_token)
    alg = header.get("alg")
    if alg != "RS256":
        shown = "none, an unsigned token" if str(alg).lower() == "none" else repr(alg)
        raise LtiError(f"the launch is signed with alg {shown}; only RS256 is accepted")
    registration, client_id = _registration(unverified, registrations)
    kid = header.get("kid")
    key = platform_keys.key(registration.key_set_url, kid if isinstance(kid, str) else None)
    try:
        claims = jwt.decode(id_token, key, algorithms=["RS256"]).claims
    except BadSignatureError:
        raise LtiError("the launch's signature does not match the platform's keys") from None
    except JoseError as error:
        raise LtiError(f"the launch's id_token is malformed ({error})") from None

    expires = _check_times(claims, time.time() if now is None else now, leeway)
    deployment_id = _text(claims, LTI + "deployment_id")
    if deployment_id is None:
        raise LtiError("the launch has no deployment_id")
    if deployment_id not in registration.deployment_ids:
        raise LtiError(
            f"the launch's deployment {deployment_id} is not registered for "
            f"platform {registration.issuer}"
        )
    launch = _launch(claims, registration, client_id, deployment_id)

    nonce = _text(claims, "nonce")
    if nonce is None:
        raise LtiError("the launch has no nonce")
    if expected_nonce is not None and nonce != expected_nonce:
        raise LtiError("the launch's nonce is not the one this browser's login asked for")
    if not nonces.use_once(nonce, expires + leeway):
        raise LtiError("this launch was already used (nonce seen before)")
    return launch


def _peek(id_token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Header and claims, not yet verified: they only say which key should verify."""
    if len(id_token) > MAX_TOKEN:
        raise LtiError(f"the launch's id_token is over {MAX_TOKEN} characters")
    parts = id_token.split(".")
    try:
        if len(parts) != 3:
            raise ValueError
        header, claims = (
            json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
            for part in parts[:2]
        )
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise LtiError("the launch's id_token is not a JWT") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise LtiError("the launch's id_token is not a JWT")
    return header, claims


def _registration(claims: dict[str, Any], registrations: Registrations) -> tuple[Registration, str]:
    """The registration the token is for, from iss, aud and azp."""
    issuer = claims.get("iss")
    if not isinstance(issuer, str) or not issuer:
        raise LtiError("the launch names no platform (iss)")
    aud = claims.get("aud")
    audiences = [aud] if isinstance(aud, str) else aud
    if not isinstance(audiences, list) or not audiences:
        raise LtiError("the launch names no audience (aud)")
    azp = claims.get("azp")
    if len(audiences) > 1:
        if not isinstance(azp, str) or azp not in audiences:
            raise LtiError("the launch has several audiences and no azp naming one of them")
        client_id = azp
    else:
        client_id = audiences[0]
        if azp is not None and azp != client_id:
            raise LtiError(f"the launch's azp {azp!r} is not its audience {client_id!r}")
    registration = registrations.find(issuer, str(client_id))
    if registration is None:
        raise LtiError(
            f"the launch is for client_id {client_id!r}, which is not registered for "
            f"platform {issuer}"
        )
    return registration, registration.client_id


def _check_times(claims: dict[str, Any], now: float, leeway: float) -> float:
    """exp in the future and iat not in it (both within ``leeway``); exp returned."""
    exp, iat = claims.get("exp"), claims.get("iat")
    if not _number(exp):
        raise LtiError("the launch has no valid expiry (exp)")
    if not _number(iat):
        raise LtiError("the launch has no valid issue time (iat)")
    if exp <= now - leeway:
        raise LtiError(f"the launch expired at {_when(exp)} (now {_when(now)})")
    if iat > now + leeway:
        raise LtiError(
            f"the launch was issued in the future, at {_when(iat)} (now {_when(now)}): "
            "is the platform's clock right?"
        )
    return float(exp)


def _launch(
    claims: dict[str, Any], registration: Registration, client_id: str, deployment_id: str
) -> Launch:
    message_type = claims.get(LTI + "message_type")
    if message_type not in (RESOURCE_LINK_REQUEST, DEEP_LINKING_REQUEST):
        raise LtiError(
            f"the launch's message type {message_type!r} is not one this tool handles "
            f"({RESOURCE_LINK_REQUEST} or {DEEP_LINKING_REQUEST})"
        )
    version = claims.get(LTI + "version")
    if version != VERSION:
        raise LtiError(f"the launch is for LTI version {version!r}; this tool speaks {VERSION}")
    subject = _text(claims, "sub")
    if subject is None:
        raise LtiError("the launch names no user (sub)")
    roles = claims.get(LTI + "roles")
    if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
        raise LtiError("the launch has no roles claim (a list of role URIs)")
    target = _text(claims, LTI + "target_link_uri")
    if target is None:
        raise LtiError("the launch has no target_link_uri")

    link = _object(claims, LTI + "resource_link")
    link_id = _text(link, "id")
    if message_type == RESOURCE_LINK_REQUEST and link_id is None:
        raise LtiError("the resource link launch has no resource_link id")
    deep_linking = None
    if message_type == DEEP_LINKING_REQUEST:
        settings = _object(claims, DEEP_LINKING_SETTINGS)
        return_url = _text(settings, "deep_link_return_url")
        if return_url is None:
            raise LtiError("the deep linking request has no deep_link_return_url in its settings")
        deep_linking = DeepLinkingSettings(
            deep_link_return_url=return_url,
            accept_types=tuple(_strings(settings.get("accept_types"))),
            accept_multiple=settings.get("accept_multiple") is not False,
            data=_text(settings, "data"),
        )

    context = _object(claims, LTI + "context")
    context_id = _text(context, "id")
    ags = _object(claims, AGS_ENDPOINT)
    custom = _object(claims, LTI + "custom")
    return Launch(
        message_type=message_type,
        issuer=registration.issuer,
        client_id=client_id,
        deployment_id=deployment_id,
        subject=subject,
        role=course_role(roles),
        roles=tuple(roles),
        target_link_uri=target,
        name=_text(claims, "name"),
        email=_text(claims, "email"),
        context=(
            Context(context_id, _text(context, "title"), _text(context, "label"))
            if context_id
            else None
        ),
        resource_link_id=link_id,
        custom={name: value for name, value in custom.items() if isinstance(value, str)},
        ags=(
            AgsEndpoint(
                tuple(_strings(ags.get("scope"))), _text(ags, "lineitems"), _text(ags, "lineitem")
            )
            if ags
            else None
        ),
        memberships_url=_text(_object(claims, NRPS), "context_memberships_url"),
        deep_linking=deep_linking,
    )


def _text(claims: dict[str, Any], name: str) -> str | None:
    value = claims.get(name)
    return value if isinstance(value, str) and value else None


def _object(claims: dict[str, Any], name: str) -> dict[str, Any]:
    value = claims.get(name)
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _number(value: object) -> TypeGuard[int | float]:
    """A JSON NumericDate: NaN never expires, so it is no date (nor is a bool)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def _when(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
