"""What the HTML forms send: urlencoded bodies (python-multipart is not a dependency), a
safe place to go back to, and the pages' session cookie."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import parse_qs

from fastapi import Request
from fastapi.responses import Response

from app.cookies import SESSION_COOKIE

MAX_FIELDS = 20


async def form_fields(request: Request) -> dict[str, str]:
    """The first value of each field of a urlencoded form (bad encodings: no fields)."""
    body = (await request.body()).decode("utf-8", "replace")
    try:
        fields = parse_qs(body, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError:
        return {}
    return {name: values[0] for name, values in fields.items()}


def local_path(target: str | None, default: str = "/") -> str:
    """``target`` if it is a path on this site, else ``default``: a sign-in link cannot
    send anyone to another site afterwards (``//evil.example`` is another site)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    if any(ord(c) < 32 for c in target):
        return default
    return target


def set_session_cookie(response: Response, request: Request, token: str, expires: datetime) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        expires=expires,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
