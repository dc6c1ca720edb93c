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

Two paths are cross-site by design (``CROSS_SITE_BY_DESIGN``): an LTI 1.3 login initiation
and launch are posted to Drill by the LMS's pages (the launch is OIDC's ``form_post``).
They are not believed for where they come from but for what they carry: a login only
stores a pending state for a registered platform; a launch counts only with a ``state``
this tool issued (used once), a ``nonce`` used once, and an id_token signed by that
platform's key for this tool (app/lti/launch.py). Neither acts through the browser's
cookies: the middleware sets no learner cookie on them (a cross-site POST carries no
SameSite=Lax cookie, so a new one would replace the learner's), and the launch says on
the page it opens who is now signed in, and whose session it replaced.
"""

from __future__ import annotations

from urllib.parse import urlsplit

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# "none": the user's own action (typed, bookmarked); "same-origin": Drill's own pages.
_ALLOWED_SITES = (b"same-origin", b"none")
# Posted by an LMS from its own site (see above); every other path is checked.
CROSS_SITE_BY_DESIGN = frozenset({"/lti/login", "/lti/launch"})


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key == name:
            return value
    return None


def cross_site_reason(
    method: str, headers: list[tuple[bytes, bytes]], path: str = ""
) -> str | None:
    """Why this request must be refused as cross-site, or None."""
    if method not in UNSAFE_METHODS or path in CROSS_SITE_BY_DESIGN:
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
