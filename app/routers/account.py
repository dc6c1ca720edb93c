"""Signing up, in and out, the account page (password, courses, your data) and deleting it.

Forms post to the same origin (app/cross_site.py refuses them from other sites). Sign-up
and sign-in are metered per client address: each costs an argon2 hash.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts import AccountError
from app.deps import AccountDep, AccountsDep, CoursesDep, LearnerDep, get_client
from app.errors import RateLimited
from app.forms import clear_session_cookie, form_fields, local_path, set_session_cookie
from app.limits import RateLimiter
from app.privacy import delete_account, delete_learner_data, learner_data
from app.routers.pages import render
from app.stats import short_learner

router = APIRouter(tags=["account"], include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}
# Per client address: a class of 60 behind one NAT address can sign up within minutes.
SIGN_UPS = RateLimiter(per_minute=2, burst=60, what="sign-ups from your address")
SIGN_INS = RateLimiter(per_minute=10, burst=20, what="sign-in attempts from your address")


def _page(request: Request, name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    response = render(request, name, status_code=status_code, **context)
    response.headers.update(NO_STORE)
    return response


def _metered(limiter: RateLimiter, request: Request) -> str | None:
    try:
        limiter.check(f"{id(request.app)}:{get_client(request)}")
    except RateLimited as refused:
        return refused.message
    return None


def _signed_in(request: Request, account_token: tuple[str, Any], target: str) -> Response:
    response = RedirectResponse(target, status_code=303)
    set_session_cookie(response, request, *account_token)
    return response


@router.get("/account/signup", response_class=HTMLResponse)
async def signup_form(request: Request, account: AccountDep, next: str = "/") -> Response:
    if account is not None:
        return RedirectResponse(local_path(next), status_code=303)
    return _page(request, "account_signup.html", next=local_path(next), values={})


@router.post("/account/signup", response_class=HTMLResponse)
async def signup(request: Request, accounts: AccountsDep, learner: LearnerDep) -> Response:
    fields = await form_fields(request)
    target = local_path(fields.get("next"))
    values = {"username": fields.get("username", ""), "name": fields.get("name", "")}

    def again(error: str, status: int) -> HTMLResponse:
        return _page(
            request, "account_signup.html", status, error=error, next=target, values=values
        )

    if (refusal := _metered(SIGN_UPS, request)) is not None:
        return again(refusal[:1].upper() + refusal[1:] + ".", 429)
    if fields.get("password", "") != fields.get("confirm", ""):
        return again("The two passwords are not the same.", 422)
    try:
        account = await run_in_threadpool(
            accounts.sign_up,
            values["username"],
            fields.get("password", ""),
            values["name"],
            None if request.scope["state"].get("account") else learner,
        )
        session = await run_in_threadpool(accounts.start_session, account)
    except AccountError as exc:
        return again(str(exc), 422)
    return _signed_in(request, session, target)


@router.get("/account/signin", response_class=HTMLResponse)
async def signin_form(request: Request, account: AccountDep, next: str = "/") -> Response:
    if account is not None:
        return RedirectResponse(local_path(next), status_code=303)
    return _page(request, "account_signin.html", next=local_path(next), values={})


@router.post("/account/signin", response_class=HTMLResponse)
async def signin(request: Request, accounts: AccountsDep, learner: LearnerDep) -> Response:
    fields = await form_fields(request)
    target = local_path(fields.get("next"))
    values = {"username": fields.get("username", "")}

    def again(error: str, status: int) -> HTMLResponse:
        return _page(
            request, "account_signin.html", status, error=error, next=target, values=values
        )

    if (refusal := _metered(SIGN_INS, request)) is not None:
        return again(refusal[:1].upper() + refusal[1:] + ".", 429)
    # Only an anonymous learner's work is merged: never one account's into another.
    anonymous = None if request.scope["state"].get("account") else learner
    try:
        account = await run_in_threadpool(
            accounts.sign_in, values["username"], fields.get("password", ""), anonymous
        )
        session = await run_in_threadpool(accounts.start_session, account)
    except AccountError as exc:
        return again(str(exc), 401)
    return _signed_in(request, session, target)


@router.post("/account/signout")
async def signout(request: Request, accounts: AccountsDep) -> Response:
    token = request.scope["state"].get("session")
    if token:
        await run_in_threadpool(accounts.end_session, token)
    response = RedirectResponse("/", status_code=303)
    clear_session_cookie(response, request)
    # The next person at this browser starts afresh, not as the anonymous learner whose
    # work went into the account.
    response.delete_cookie("drill_learner", path="/", httponly=True, samesite="lax")
    return response


@router.get("/account", response_class=HTMLResponse)
async def account_page(
    request: Request,
    account: AccountDep,
    learner: LearnerDep,
    courses: CoursesDep,
    done: str | None = None,
) -> Response:
    data = await run_in_threadpool(learner_data, courses.store, learner)
    joined = await run_in_threadpool(courses.of_account, account) if account else []
    return _page(
        request,
        "account.html",
        data=data,
        courses=joined,
        pseudonym=short_learner(learner),
        done=done,
    )


@router.post("/account/password", response_class=HTMLResponse)
async def change_password(
    request: Request, account: AccountDep, accounts: AccountsDep, courses: CoursesDep
) -> Response:
    if account is None:
        return RedirectResponse("/account/signin?next=/account", status_code=303)
    fields = await form_fields(request)
    if fields.get("new", "") != fields.get("confirm", ""):
        error = "The two new passwords are not the same."
    else:
        try:
            await run_in_threadpool(
                accounts.change_password,
                account,
                fields.get("current", ""),
                fields.get("new", ""),
                request.scope["state"].get("session") or "",
            )
            return RedirectResponse("/account?done=password", status_code=303)
        except AccountError as exc:
            error = str(exc)
    learner = request.scope["state"]["learner"]
    data = await run_in_threadpool(learner_data, courses.store, learner)
    return _page(
        request,
        "account.html",
        422,
        data=data,
        courses=await run_in_threadpool(courses.of_account, account),
        pseudonym=short_learner(learner),
        password_error=error,
    )


@router.post("/account/delete", response_class=HTMLResponse)
async def delete(
    request: Request, account: AccountDep, learner: LearnerDep, courses: CoursesDep
) -> Response:
    """Delete what Drill keeps of the caller: an account and all it holds, or an anonymous
    learner's submissions and drafts. The form asks to type DELETE first."""
    fields = await form_fields(request)
    if fields.get("confirm", "").strip().upper() != "DELETE":
        data = await run_in_threadpool(learner_data, courses.store, learner)
        joined = await run_in_threadpool(courses.of_account, account) if account else []
        return _page(
            request,
            "account.html",
            422,
            data=data,
            courses=joined,
            pseudonym=short_learner(learner),
            delete_error="Type DELETE in the box to confirm.",
        )
    if account is not None:
        await run_in_threadpool(delete_account, courses.store, account.id)
        request.app.state.accounts.forget_cached_sessions()  # its other browsers, here
    else:
        await run_in_threadpool(delete_learner_data, courses.store, learner)
    response = RedirectResponse("/account?done=deleted", status_code=303)
    clear_session_cookie(response, request)
    response.delete_cookie("drill_learner", path="/", httponly=True, samesite="lax")
    return response
