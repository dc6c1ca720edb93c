"""Response headers every answer carries, the learner cookie, and the request size cap.

A pure ASGI middleware (no per-request task or body copy beyond what it must check):

- a fresh CSP nonce per request (``scope["state"]["csp_nonce"]``), used by the page for
  the editor's injected styles; no inline scripts are ever allowed;
- an anonymous learner id in an HttpOnly cookie, created on the first visit;
- the signed-in account, if the request carries a live session (the ``drill_session``
  cookie, or the ``X-Drill-Session`` header a page launched from an LMS sends): then the
  learner is the account's (``scope["state"]["account"]``), whatever the cookie says;
- bodies over the cap are refused with 413 before any of them reaches the app, and
  oversized Cookie or header sections with 431 before anything parses them.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Sequence
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.cookies import (
    LEARNER_COOKIE,
    SESSION_COOKIE,
    cookie_values,
    oversized,
    own_cookies_only,
)
from app.cross_site import CROSS_SITE_BY_DESIGN, cross_site_reason, json_body_reason
from app.proxies import forwarded_https

_LEARNER = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
_SESSION = re.compile(r"^[A-Za-z0-9_-]{32,64}$")
SESSION_HEADER = b"x-drill-session"
_DOCS = ("/docs", "/redoc")

PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'nonce-{nonce}'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
# Swagger UI and ReDoc load their scripts from a CDN and start them inline.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "font-src https://fonts.gstatic.com; img-src 'self' data: https://fastapi.tiangolo.com; "
    "worker-src blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


def _session_token(headers: list[tuple[bytes, bytes]]) -> str | None:
    """A session token from the header (a launched page) or else the cookie."""
    for name, value in headers:
        if name == SESSION_HEADER:
            text = value.decode("latin-1")
            return text if _SESSION.match(text) else None
    for cookie in cookie_values(headers, SESSION_COOKIE):
        if _SESSION.match(cookie):
            return cookie
    return None


def _learner_from(headers: list[tuple[bytes, bytes]]) -> str | None:
    for value in cookie_values(headers, LEARNER_COOKIE):
        if _LEARNER.match(value):
            return value
    return None


class SecurityMiddleware:
    def __init__(self, app: ASGIApp, max_body: int, trusted_proxies: Sequence[str] = ()) -> None:
        self.app = app
        self.max_body = max_body
        self.trusted_proxies = tuple(trusted_proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = oversized(scope["headers"])
        if too_large is not None:  # refused before anything parses them
            await _refuse(send, 431, "headers_too_large", too_large)
            return
        method: str = scope["method"]
        cross_site = cross_site_reason(method, scope["headers"], scope["path"])
        if cross_site is not None:  # refused with no new learner cookie: nothing is replaced
            message = f"{cross_site}; Drill only accepts changes made from its own pages"
            await _refuse(send, 403, "cross_site", message)
            return
        not_json = json_body_reason(method, scope["path"], scope["headers"])
        if not_json is not None:
            await _refuse(send, 415, "unsupported_media_type", not_json)
            return
        scope["headers"] = own_cookies_only(scope["headers"])
        state: dict[str, Any] = scope.setdefault("state", {})
        nonce = secrets.token_urlsafe(16)
        state["csp_nonce"] = nonce
        learner = _learner_from(scope["headers"])
        # An LMS's cross-site login or launch never carries the (SameSite=Lax) learner
        # cookie: a new one would replace the learner's own (app/cross_site.py).
        new_learner = learner is None and scope["path"] not in CROSS_SITE_BY_DESIGN
        # The browser's anonymous id: kept apart, since a signed-in request's learner is
        # the account's, which must never be written into the anonymous cookie.
        anonymous = learner or secrets.token_urlsafe(24)
        state["learner"] = state["anonymous"] = anonymous
        state["account"] = None
        token = _session_token(scope["headers"])
        accounts = getattr(scope["app"].state, "accounts", None) if "app" in scope else None
        if token is not None and accounts is not None:
            account = await run_in_threadpool(accounts.session_account, token)
            if account is not None:
                state["account"], state["session"] = account, token
                state["learner"] = account.learner
        path: str = scope["path"]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                csp = DOCS_CSP if path.startswith(_DOCS) else PAGE_CSP.format(nonce=nonce)
                # A page launched from an LMS may be framed by that LMS only (the route
                # names its origin); every other page by nobody.
                framers = state.get("frame_ancestors")
                if framers:
                    csp = csp.replace("frame-ancestors 'none'", "frame-ancestors " + framers)
                # A page that posts a form to an LMS (an LTI deep linking answer) names
                # that LMS's origin; every other page posts to Drill only.
                form_target = state.get("form_action")
                if form_target:
                    csp = csp.replace("form-action 'self'", "form-action 'self' " + form_target)
                headers["Content-Security-Policy"] = csp
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
                if not framers:
                    headers["X-Frame-Options"] = "DENY"
                if path.startswith("/api/"):
                    headers["Cache-Control"] = "no-store"
                if new_learner:
                    secure = "; Secure" if _https(scope, self.trusted_proxies) else ""
                    headers.append(
                        "Set-Cookie",
                        f"{LEARNER_COOKIE}={anonymous}; Path=/; Max-Age=31536000; "
                        f"HttpOnly; SameSite=Lax{secure}",
                    )
            await send(message)

        if scope["method"] in ("POST", "PUT", "PATCH"):
            try:
                body = await self._read_body(receive)
            except _CutShort:
                return  # nobody to answer, and a body cut short is not acted upon
            if body is None:
                await self._too_large(send_with_headers)
                return
            receive = _replay(body)
        await self.app(scope, receive, send_with_headers)

    async def _read_body(self, receive: Receive) -> bytes | None:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                # The client went, or its body came too slowly (app/slow_clients.py).
                raise _CutShort
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _too_large(self, send: Send) -> None:
        message = f"the request body is larger than {self.max_body // 1024} KiB"
        await _refuse(send, 413, "too_large", message)


class _CutShort(Exception):
    """The connection ended before the request's body did."""


async def _refuse(send: Send, status: int, error: str, message: str) -> None:
    body = json.dumps({"error": error, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _replay(body: bytes) -> Receive:
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def _https(scope: Scope, trusted_proxies: tuple[str, ...]) -> bool:
    """HTTPS to us, or to a trusted proxy in front of us (TLS ends at the balancer)."""
    if scope.get("scheme") == "https":
        return True
    client = scope.get("client")
    protos = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-proto"]
    return bool(protos) and forwarded_https(client[0] if client else None, protos, trusted_proxies)
