"""The instructor's way in: the login form, login and logout, and the guard every
instructor page passes first (``guard``).

The pages take the cookie the login form sets (see app/instructor_auth.py); the JSON API
takes the token as a bearer token instead.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.deps import get_client
from app.instructor_auth import (
    COOKIE,
    DISABLED,
    configured_token,
    failed_attempts,
    has_valid_cookie,
    same_secret,
    set_login_cookie,
    throttled,
)
from app.routers.pages import render

NO_STORE = {"Cache-Control": "no-store"}  # learners' code: never in a shared cache

router = APIRouter(prefix="/instructor", tags=["instructor pages"], include_in_schema=False)


def page(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """An instructor page: never kept in a shared cache."""
    response = render(request, name, status_code=status_code, **context)
    response.headers.update(NO_STORE)
    return response


def disabled(request: Request) -> HTMLResponse:
    return render(
        request,
        "error.html",
        status_code=404,
        title="Instructor dashboard disabled",
        message=DISABLED[:1].upper() + DISABLED[1:] + " to enable it.",
    )


def guard(request: Request) -> Response | None:
    """The answer to give instead of the page, or None when the instructor is logged in."""
    token = configured_token(request)
    if token is None:
        return disabled(request)
    if not has_valid_cookie(request, token):
        return RedirectResponse("/instructor/login", status_code=303)
    return None


def _login_form(request: Request, error: str | None = None, status_code: int = 200) -> Response:
    return page(request, "instructor_login.html", status_code=status_code, error=error)


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request) -> Response:
    token = configured_token(request)
    if token is None:
        return disabled(request)
    if has_valid_cookie(request, token):
        return RedirectResponse("/instructor", status_code=303)
    return _login_form(request)


@router.post("/login", response_class=HTMLResponse)
async def login(request: Request) -> Response:
    token = configured_token(request)
    if token is None:
        return disabled(request)
    if (refusal := throttled(request)) is not None:
        refused = _login_form(
            request,
            f"Too many wrong tokens; try again in {refusal.retry_after} s.",
            status_code=429,
        )
        refused.headers["Retry-After"] = str(refusal.retry_after)
        return refused
    # A urlencoded form, parsed here: python-multipart is not a dependency.
    body = (await request.body()).decode("utf-8", "replace")
    try:
        fields = parse_qs(body, keep_blank_values=True, max_num_fields=20)
    except ValueError:
        fields = {}
    given = (fields.get("token") or [""])[0]
    if not given:
        return _login_form(request, "Enter the instructor token.", status_code=401)
    if not same_secret(given, token):
        failed_attempts(request).failed(get_client(request))
        return _login_form(
            request,
            "That token is not the instructor token (DRILL_INSTRUCTOR_TOKEN). Try again.",
            status_code=401,
        )
    response = RedirectResponse("/instructor", status_code=303)
    set_login_cookie(response, request, token)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    token = configured_token(request)
    if token is None:
        return disabled(request)
    response = RedirectResponse("/instructor/login", status_code=303)
    response.delete_cookie(
        COOKIE, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )
    return response
