"""Requests that would change state on behalf of another site, refused before the app.

A page on another site can make a learner's browser POST to Drill (an auto-submitted
form, even with a ``text/plain`` body that reads as JSON). The learner cookie is
``SameSite=Lax``, so it is not sent; the answer's new cookie then replaced the learner's
own, and their drafts, history and progress were gone from that browser. The same page
could log an instructor out. So a state-changing request is refused (403) when the
browser says it comes from another site (``Sec-Fetch-Site``, sent by every current
browser), or, from a browser too old to say, when its ``Origin`` is not this host.
Clients that are not browsers send neither header and are unaffected. The JSON API also
takes JSON bodies only as ``application/json``, a type no plain HTML form can send.
"""

from __future__ import annotations

from urllib.parse import urlsplit

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# "none": the user's own action (typed, bookmarked); "same-origin": Drill's own pages.
_ALLOWED_SITES = (b"same-origin", b"none")


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key == name:
            return value
    return None


def cross_site_reason(method: str, headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why this request must be refused as cross-site, or None."""
    if method not in UNSAFE_METHODS:
        return None
    site = _header(headers, b"sec-fetch-site")
    if site is not None:
        if site.strip().lower() in _ALLOWED_SITES:
            return None
        return "this request came from another site"
    origin = _header(headers, b"origin")
    if origin is None:
        return None
    host = _header(headers, b"host") or b""
    try:
        netloc = urlsplit(origin.decode("latin-1")).netloc.encode()
    except ValueError:  # not a URL ("http://[" is an invalid IPv6 one): not this host
        return "this request came from another site"
    if origin.strip() == b"null" or netloc != host:
        return "this request came from another site"
    return None


def json_body_reason(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> str | None:
    """Why this JSON API request's body type is refused, or None."""
    if method not in UNSAFE_METHODS or not path.startswith("/api/"):
        return None
    length = _header(headers, b"content-length")
    if _header(headers, b"transfer-encoding") is None and length in (None, b"0"):
        return None  # no body at all: nothing to misread
    kind = (_header(headers, b"content-type") or b"").split(b";")[0].strip().lower()
    if kind == b"application/json":
        return None
    return "the request body must be JSON, sent as Content-Type: application/json"
