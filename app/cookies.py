"""Drill's cookies, read from the raw Cookie headers in time linear in their length.

``http.cookies.SimpleCookie`` and Starlette's ``request.cookies`` (which FastAPI parses
for every route) both unquote values with ``http.cookies._unquote``, quadratic on crafted
input on the Python this runs on (CVE-2024-7592): one 64 KB cookie of backslashes held
the event loop for 20 s. So the middleware bounds the headers (431), then hands the app a
Cookie header with Drill's own cookies only, each a plain token, and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LEARNER_COOKIE = "drill_learner"
INSTRUCTOR_COOKIE = "drill_instructor"
SESSION_COOKIE = "drill_session"  # a signed-in account (app/accounts.py)
OWN_COOKIES = (LEARNER_COOKIE, INSTRUCTOR_COOKIE, SESSION_COOKIE)
# What Drill writes in its cookies (URL-safe tokens, "<expiry>.<hex HMAC>"): never quoted.
_PLAIN = re.compile(r"[A-Za-z0-9._-]{1,256}")

# Larger Cookie headers are refused before anything parses them (431): Drill's own
# cookies take under 200 bytes, and 8 KiB is what common proxies allow for one header.
MAX_COOKIE_BYTES = 8 * 1024
# All request headers together, for the same reason.
MAX_HEADER_BYTES = 32 * 1024


def cookie_values(headers: Iterable[tuple[bytes, bytes]], name: str) -> list[str]:
    """Every value sent for cookie ``name``, in the order the client sent them."""
    prefix = name.encode("latin-1") + b"="
    found = []
    for header, value in headers:
        if header != b"cookie":
            continue
        for pair in value.split(b";"):
            pair = pair.strip()
            if pair.startswith(prefix):
                found.append(pair[len(prefix) :].decode("latin-1"))
    return found


def oversized(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """Why these headers are too large to be read, or None."""
    cookies = total = 0
    for header, value in headers:
        total += len(header) + len(value) + 4
        if header == b"cookie":
            cookies += len(value)
    if cookies > MAX_COOKIE_BYTES:
        return f"the request's cookies are larger than {MAX_COOKIE_BYTES // 1024} KiB"
    if total > MAX_HEADER_BYTES:
        return f"the request's headers are larger than {MAX_HEADER_BYTES // 1024} KiB"
    return None


def own_cookies_only(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """``headers`` with the Cookie headers replaced by one that holds Drill's own cookies
    whose values are plain tokens: whatever else a client sends never reaches a parser."""
    kept = [
        f"{name}={value}"
        for name in OWN_COOKIES
        for value in cookie_values(headers, name)
        if _PLAIN.fullmatch(value)
    ]
    others = [(name, value) for name, value in headers if name != b"cookie"]
    if kept:
        others.append((b"cookie", "; ".join(kept).encode("latin-1")))
    return others
