"""A test LMS: a real LTI 1.3 platform served over HTTP on loopback, with its own RSA keys.

It does what Moodle or Canvas do for a tool, and checks what they check: dynamic
registration (``/.well-known/openid-configuration``, ``/register``), its key set
(``/jwks``), the OIDC authorization endpoint (``/auth``: answers the tool's login redirect
with an auto-submitting form posting a signed id_token), the OAuth2 token endpoint
(``/token``: verifies the tool's client assertion against the tool's JWKS, fetched over
HTTP), AGS line items and scores and NRPS memberships (bearer token required, paged with
``Link: rel="next"``), and the Deep Linking return (``/deep-link-return``: verifies the
tool's JWT). Everything received is recorded for the tests to look at. ``/course`` is a
course page embedding the tool's launch in an iframe, for browser tests.

``platform.running()`` serves one platform; tests/lti/conftest.py serves a fresh one per
test behind a ``Mount`` started once.

``id_token`` makes launches directly, including broken ones (expired, signed by another
key, alg none, HS256 keyed with the public key, wrong audience, any claim changed).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import html
import json
import secrets
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qsl, urlencode

import httpx
import uvicorn
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from app.lti.registration import Registration, ToolSite

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
INSTRUCTOR = MEMBERSHIP + "Instructor"
LEARNER = MEMBERSHIP + "Learner"
TEACHING_ASSISTANT = (
    "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
)
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
CLIENT_ID = "drill-client-1"  # what the platform calls the tool

USERS: dict[str, dict[str, Any]] = {
    "teacher": {"name": "Ada Teacher", "email": "ada@lms.test", "roles": [INSTRUCTOR]},
    "assistant": {"name": "Tom Assistant", "email": "tom@lms.test", "roles": [TEACHING_ASSISTANT]},
    **{
        f"learner{n}": {"name": f"Learner {n}", "email": f"l{n}@lms.test", "roles": [LEARNER]}
        for n in range(1, 6)
    },
}


class Mount:
    """An ASGI app forwarding to ``app``, which may change: one server for a whole test
    session, a fresh platform behind it for every test (a uvicorn stop takes 0.2 s)."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.app is None:
            await Response("nothing mounted", 503)(scope, receive, send)
        else:
            await self.app(scope, receive, send)


@contextmanager
def serve(app: ASGIApp) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a background thread on a free loopback port; yields
    its base URL and stops it on leaving."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


async def read_form(request: Request) -> dict[str, str]:
    """A urlencoded body (python-multipart, which Starlette's own form parsing needs, is
    not a dependency)."""
    return dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))


async def read_params(request: Request) -> dict[str, str]:
    """Query and form parameters together, as an OIDC endpoint reads them."""
    return dict(request.query_params) | await read_form(request)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class Platform:
    """The LMS. Construct, then ``with platform.running():``; ``base`` is its issuer."""

    def __init__(self, key: RSAKey, other_key: RSAKey) -> None:
        self.key = key  # signs its id_tokens; published at /jwks
        self.other_key = other_key  # a forger's key (with the same kid)
        self.published: list[RSAKey] = [key]
        self.base = ""
        self.registration_token = secrets.token_urlsafe(16)
        self.client_id = CLIENT_ID
        self.deployment_id = "deployment-1"
        self.context_id = "course-101"
        self.tool: dict[str, Any] = {}  # the tool's registration, as received or set
        self.issuer_override: str | None = None  # a configuration lying about its issuer
        self.signing = "platform"  # how /auth signs its launches ("other": forged)
        # What the platform saw, for the tests:
        self.registrations: list[dict[str, Any]] = []
        self.auth_requests: list[dict[str, str]] = []
        self.jwks_fetches = 0
        self.assertions: list[dict[str, Any]] = []  # verified client assertions
        self.tokens: dict[str, tuple[set[str], float]] = {}  # token -> scopes, expiry
        self.line_items: dict[str, dict[str, Any]] = {}
        self.scores: list[dict[str, Any]] = []
        self.deep_links: list[dict[str, Any]] = []  # verified deep linking responses
        # Misbehaviour on demand, for the service calls (AGS, NRPS):
        self.fail_next: list[int] = []  # statuses to answer the next calls with
        self.delay = 0.0  # seconds each service call waits before answering
        self.page_size = 2
        self.foreign_next_link = False
        self.members = list(USERS)

    # ----- serving

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/.well-known/openid-configuration", self.openid_configuration),
                Route("/register", self.register, methods=["POST"]),
                Route("/jwks", self.jwks),
                Route("/auth", self.auth, methods=["GET", "POST"]),
                Route("/token", self.token, methods=["POST"]),
                Route("/ags/lineitems", self.lineitems, methods=["GET", "POST"]),
                Route("/ags/lineitems/{n}", self.lineitem),
                Route("/ags/lineitems/{n}/scores", self.scores_endpoint, methods=["POST"]),
                Route("/nrps/memberships", self.memberships),
                Route("/deep-link-return", self.deep_link_return, methods=["POST"]),
                Route("/course", self.course),
            ]
        )

    def serving_at(self, base: str) -> Platform:
        """Note where ``app()`` is served: ``base`` is the issuer and the URLs' prefix."""
        self.base = base
        self.line_items["1"] = {
            "id": f"{base}/ags/lineitems/1",
            "label": "Existing",
            "scoreMaximum": 10,
            "resourceId": "existing",
        }
        return self

    @contextmanager
    def running(self) -> Iterator[Platform]:
        with serve(self.app()) as base:
            yield self.serving_at(base)

    def know_tool(self, tool: ToolSite) -> None:
        """Register a tool without dynamic registration (what an administrator would type)."""
        self.tool = tool.client_registration()

    def registration(self) -> Registration:
        """The registration the tool should hold for this platform."""
        return Registration(
            issuer=self.base,
            client_id=self.client_id,
            deployment_ids=(self.deployment_id,),
            auth_login_url=f"{self.base}/auth",
            auth_token_url=f"{self.base}/token",
            key_set_url=f"{self.base}/jwks",
        )

    def rotate(self, key: RSAKey) -> None:
        """Publish ``key`` beside the old one and sign with it from now on."""
        self.key = key
        self.published.append(key)

    # ----- launches

    def launch_claims(
        self, user: str = "learner1", message: str = "resource", nonce: str | None = None
    ) -> dict[str, Any]:
        """The claims of a valid launch of ``user`` (a key of USERS); ``message`` is
        "resource" (LtiResourceLinkRequest) or "deep" (LtiDeepLinkingRequest)."""
        now = int(time.time())
        person = USERS[user]
        claims: dict[str, Any] = {
            "iss": self.base,
            "aud": self.client_id,
            "sub": f"sub-{user}",
            "iat": now,
            "exp": now + 300,
            "nonce": nonce or secrets.token_urlsafe(16),
            "name": person["name"],
            "email": person["email"],
            LTI + "version": "1.3.0",
            LTI + "deployment_id": self.deployment_id,
            LTI + "target_link_uri": self.tool.get("redirect_uris", ["http://tool.test"])[0],
            LTI + "roles": person["roles"],
            LTI + "context": {"id": self.context_id, "label": "ML101", "title": "Deep Learning"},
            LTI + "custom": {"exercise": "gradient-checkpointing", "track": "numpy"},
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": [AGS + "lineitem", AGS + "score", AGS + "result.readonly"],
                "lineitems": f"{self.base}/ags/lineitems",
                "lineitem": f"{self.base}/ags/lineitems/1",
            },
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": f"{self.base}/nrps/memberships",
                "service_versions": ["2.0"],
            },
        }
        if message == "deep":
            claims[LTI + "message_type"] = "LtiDeepLinkingRequest"
            claims["https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"] = {
                "deep_link_return_url": f"{self.base}/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": True,
                "data": "opaque-platform-data",
            }
        else:
            claims[LTI + "message_type"] = "LtiResourceLinkRequest"
            claims[LTI + "resource_link"] = {"id": "link-1", "title": "Checkpointing"}
        return claims

    def id_token(
        self,
        user: str = "learner1",
        message: str = "resource",
        *,
        nonce: str | None = None,
        signing: str = "platform",
        expired: bool = False,
        audience: str | list[str] | None = None,
        changes: dict[str, Any] | None = None,
        drop: Iterable[str] = (),
    ) -> str:
        """A launch id_token. ``signing``: "platform" (its key), "other" (a forger's key
        with the platform's kid), "none" (unsigned) or "HS256" (HMAC keyed with the
        platform's public key PEM). ``changes`` overrides claims, ``drop`` removes them."""
        claims = self.launch_claims(user, message, nonce)
        if expired:
            claims["iat"], claims["exp"] = claims["iat"] - 900, claims["iat"] - 600
        if audience is not None:
            claims["aud"] = audience
        claims.update(changes or {})
        for name in drop:
            claims.pop(name, None)
        return self.sign(claims, signing)

    def sign(self, claims: dict[str, Any], signing: str = "platform") -> str:
        if signing in ("platform", "other"):
            key = self.key if signing == "platform" else self.other_key
            return jwt.encode({"alg": "RS256", "kid": str(key.kid)}, claims, key, ["RS256"])
        header = {"alg": signing, "typ": "JWT", "kid": str(self.key.kid)}
        signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(claims).encode())}"
        if signing == "none":
            return signing_input + "."
        assert signing == "HS256", signing
        secret = self.key.as_pem(private=False)
        mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{b64(mac)}"

    def login_initiation(self, user: str = "learner1", message: str = "resource") -> dict[str, str]:
        """The parameters of a third-party-initiated login, as the platform sends them."""
        return {
            "iss": self.base,
            "login_hint": user,
            "target_link_uri": self.tool["redirect_uris"][0],
            "lti_message_hint": message,
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
        }

    # ----- dynamic registration

    async def openid_configuration(self, request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {self.registration_token}":
            return JSONResponse({"error": "registration token required"}, 401)
        return JSONResponse(
            {
                "issuer": self.issuer_override or self.base,
                "authorization_endpoint": f"{self.base}/auth",
                "token_endpoint": f"{self.base}/token",
                "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
                "jwks_uri": f"{self.base}/jwks",
                "registration_endpoint": f"{self.base}/register",
                "scopes_supported": ["openid", AGS + "score", AGS + "lineitem", NRPS_SCOPE],
                "response_types_supported": ["id_token"],
                "id_token_signing_alg_values_supported": ["RS256"],
                "claims_supported": ["iss", "sub", "name", "email"],
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                    "product_family_code": "drill-test-lms",
                    "version": "1.0",
                    "messages_supported": [
                        {"type": "LtiResourceLinkRequest"},
                        {"type": "LtiDeepLinkingRequest"},
                    ],
                },
            }
        )

    async def register(self, request: Request) -> Response:
        if request.headers.get("authorization") != f"Bearer {self.registration_token}":
            return JSONResponse({"error": "registration token required"}, 401)
        body = await request.json()
        self.registrations.append(body)
        self.tool = body
        answer = {**body, "client_id": self.client_id}
        tool_configuration = "https://purl.imsglobal.org/spec/lti-tool-configuration"
        answer[tool_configuration] = {
            **body[tool_configuration],
            "deployment_id": self.deployment_id,
        }
        return JSONResponse(answer)

    async def jwks(self, request: Request) -> Response:
        self.jwks_fetches += 1
        return JSONResponse(KeySet(list(self.published)).as_dict(private=False))

    # ----- the OIDC authorization endpoint

    async def auth(self, request: Request) -> Response:
        params = await read_params(request)
        self.auth_requests.append(params)
        expected = {
            "scope": "openid",
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": self.client_id,
        }
        for name, value in expected.items():
            if params.get(name) != value:
                return HTMLResponse(f"bad {name}: {params.get(name)!r}", 400)
        if params.get("redirect_uri") not in self.tool.get("redirect_uris", []):
            return HTMLResponse("redirect_uri not registered", 400)
        if params.get("login_hint") not in USERS or not params.get("state"):
            return HTMLResponse("unknown user or no state", 400)
        message = "deep" if params.get("lti_message_hint") == "deep" else "resource"
        token = self.id_token(
            params["login_hint"], message, nonce=params["nonce"], signing=self.signing
        )
        page = autosubmit(params["redirect_uri"], {"id_token": token, "state": params["state"]})
        return HTMLResponse(page)

    # ----- OAuth2 client credentials with a JWT client assertion

    async def tool_keys(self) -> KeySet:
        """The tool's public keys, read from its JWKS URL over HTTP."""
        async with httpx.AsyncClient(timeout=5) as client:
            answer = await client.get(self.tool["jwks_uri"])
            answer.raise_for_status()
            return KeySet.import_key_set(answer.json())

    async def token(self, request: Request) -> Response:
        form = await read_form(request)
        if form.get("grant_type") != "client_credentials":
            return JSONResponse({"error": "unsupported_grant_type"}, 400)
        if (
            form.get("client_assertion_type")
            != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        ):
            return JSONResponse(
                {"error": "invalid_client", "error_description": "assertion type"}, 401
            )
        try:
            claims = jwt.decode(
                str(form.get("client_assertion")), await self.tool_keys(), ["RS256"]
            ).claims
        except JoseError as error:
            return JSONResponse({"error": "invalid_client", "error_description": repr(error)}, 401)
        now = time.time()
        problems = [
            claims.get("iss") != self.client_id and "iss",
            claims.get("sub") != self.client_id and "sub",
            claims.get("aud") not in (f"{self.base}/token", [f"{self.base}/token"]) and "aud",
            not claims.get("exp", 0) > now and "exp",
            not claims.get("iat") and "iat",
            claims.get("jti") in [None, *(seen["jti"] for seen in self.assertions)] and "jti",
        ]
        if any(problems):
            return JSONResponse(
                {"error": "invalid_client", "error_description": str(problems)}, 401
            )
        scopes = set(str(form.get("scope", "")).split())
        if not scopes <= set(self.tool.get("scope", "").split()):
            return JSONResponse({"error": "invalid_scope"}, 400)
        self.assertions.append(claims)
        token = secrets.token_urlsafe(24)
        self.tokens[token] = (scopes, now + 3600)
        return JSONResponse(
            {
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": 3600,
                "scope": " ".join(sorted(scopes)),
            }
        )

    async def service(self, request: Request, scope: str) -> Response | None:
        """The common gate of AGS and NRPS calls: injected delays and failures, then the
        bearer token and its scope. None when the call may go on."""
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail_next:
            return Response("injected failure", self.fail_next.pop(0))
        header = request.headers.get("authorization", "")
        scopes, expires = self.tokens.get(header.removeprefix("Bearer "), (set(), 0.0))
        if not header.startswith("Bearer ") or expires < time.time():
            return JSONResponse({"error": "invalid bearer token"}, 401)
        if scope not in scopes:
            return JSONResponse({"error": f"the token lacks scope {scope}"}, 403)
        return None

    # ----- Assignment and Grade Services

    async def lineitems(self, request: Request) -> Response:
        if refused := await self.service(request, AGS + "lineitem"):
            return refused
        if request.method == "GET":
            wanted = request.query_params.get("resource_id")
            items = [i for i in self.line_items.values() if wanted in (None, i["resourceId"])]
            return JSONResponse(items, media_type=LINEITEMS_TYPE)
        if request.headers.get("content-type") != LINEITEM_TYPE:
            return JSONResponse({"error": "content type"}, 415)
        body = await request.json()
        n = str(len(self.line_items) + 1)
        self.line_items[n] = {**body, "id": f"{self.base}/ags/lineitems/{n}"}
        return JSONResponse(self.line_items[n], 201, media_type=LINEITEM_TYPE)

    async def lineitem(self, request: Request) -> Response:
        if refused := await self.service(request, AGS + "lineitem"):
            return refused
        item = self.line_items.get(request.path_params["n"])
        return JSONResponse(item, media_type=LINEITEM_TYPE) if item else Response(status_code=404)

    async def scores_endpoint(self, request: Request) -> Response:
        if refused := await self.service(request, AGS + "score"):
            return refused
        if request.path_params["n"] not in self.line_items:
            return Response("no such line item", 404)
        if request.headers.get("content-type") != SCORE_TYPE:
            return JSONResponse({"error": "content type"}, 415)
        score = await request.json()
        for name in ("userId", "scoreGiven", "scoreMaximum", "activityProgress", "gradingProgress"):
            if name not in score:
                return JSONResponse({"error": f"no {name}"}, 400)
        if datetime.fromisoformat(score["timestamp"]).tzinfo is None:
            return JSONResponse({"error": "timestamp without timezone"}, 400)
        self.scores.append({"lineitem": request.path_params["n"], **score})
        return Response(status_code=204)

    # ----- Names and Role Provisioning

    async def memberships(self, request: Request) -> Response:
        if refused := await self.service(request, NRPS_SCOPE):
            return refused
        page = int(request.query_params.get("page", "1"))
        chunk = self.members[(page - 1) * self.page_size : page * self.page_size]
        members = [
            {
                "user_id": f"sub-{user}",
                "status": "Active",
                "name": USERS[user]["name"],
                "email": USERS[user]["email"],
                "roles": USERS[user]["roles"],
            }
            for user in chunk
        ]
        headers = {}
        if page * self.page_size < len(self.members):
            site = "http://elsewhere.invalid" if self.foreign_next_link else self.base
            headers["Link"] = f'<{site}/nrps/memberships?page={page + 1}>; rel="next"'
        body = {"id": str(request.url), "context": {"id": self.context_id}, "members": members}
        return JSONResponse(body, headers=headers, media_type=MEMBERSHIPS_TYPE)

    # ----- Deep Linking return

    async def deep_link_return(self, request: Request) -> Response:
        form = await read_form(request)
        try:
            claims = jwt.decode(str(form.get("JWT")), await self.tool_keys(), ["RS256"]).claims
        except JoseError as error:
            return HTMLResponse(f"bad signature: {error!r}", 400)
        aud = claims.get("aud")
        problems = [
            claims.get("iss") != self.client_id and "iss",
            self.base not in (aud if isinstance(aud, list) else [aud]) and "aud",
            claims.get(LTI + "message_type") != "LtiDeepLinkingResponse" and "message_type",
            claims.get(LTI + "version") != "1.3.0" and "version",
            claims.get(LTI + "deployment_id") != self.deployment_id and "deployment_id",
            not claims.get("nonce") and "nonce",
            not claims.get("exp", 0) > time.time() and "exp",
        ]
        if any(problems):
            return HTMLResponse(f"refused: {problems}", 400)
        self.deep_links.append(claims)
        return HTMLResponse(f"{len(claims.get(DL + 'content_items', []))} item(s) added")

    # ----- a course page embedding the tool

    async def course(self, request: Request) -> Response:
        user = request.query_params.get("user", "learner1")
        message = request.query_params.get("message", "resource")
        src = (
            self.tool["initiate_login_uri"] + "?" + urlencode(self.login_initiation(user, message))
        )
        return HTMLResponse(
            "<!doctype html><html><head><title>Deep Learning - Test LMS</title></head><body>"
            f"<h1>Deep Learning</h1><iframe id='tool' title='Drill' src='{html.escape(src)}' "
            "width='100%' height='800' allow='clipboard-write'></iframe></body></html>"
        )


def autosubmit(action: str, fields: dict[str, str]) -> str:
    """An HTML page that posts ``fields`` to ``action`` as soon as it loads (form_post)."""
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
        for k, v in fields.items()
    )
    return (
        '<!doctype html><html><body onload="document.forms[0].submit()">'
        f'<form method="post" action="{html.escape(action)}">{inputs}'
        "<noscript><button>Continue</button></noscript></form></body></html>"
    )


class FormReader(HTMLParser):
    """The first form of a page: its action and hidden fields (what a browser would post)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.action: str | None = None
        self.fields: dict[str, str] = {}
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = values.get("action")
        elif tag == "input" and values.get("name"):
            self.fields[str(values["name"])] = values.get("value") or ""
