"""Drill's LTI 1.3 routes, under /lti/ (the protocol is in app/lti/, what a launch makes in
app/lti/tool.py):

- ``GET|POST /lti/login``: the OIDC third-party-initiated login; stores the pending
  login (state, nonce) and sends the browser to the platform (302).
- ``POST /lti/launch``: the platform posts the signed id_token with the state. A resource
  link launch opens the exercise, signed in (a "launch" session, in the page's data for
  an iframe without cookies, and in the cookie for a new tab); a deep linking launch of
  an instructor opens the exercise picker.
- ``POST /lti/deep-link``: the picker's choice, tied to its launch by a signed token (no
  cookie), answered with a form that posts the signed content item to the platform.
- ``GET /lti/jwks``: the tool's public keys.
- ``GET|POST /lti/register``: LTI Dynamic Registration, for the operator (the
  ``DRILL_INSTRUCTOR_TOKEN`` holder): the platform opens it, the operator confirms.
- ``GET|POST /lti/registrations``: the operator's list of platforms, and a form to add one
  by hand (what ``drill lti register`` does).

The login and the launch are cross-site POSTs by design (app/cross_site.py). Every refusal
is a page saying what was wrong (400, 401 or 403), never a stack trace; everything that
blocks (the database, the platform's keys and endpoints) runs in the thread pool.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from app.accounts import Account, Accounts
from app.cookies import SESSION_COOKIE, cookie_values
from app.deps import get_client
from app.forms import form_fields, set_session_cookie
from app.instructor_auth import (
    configured_token,
    failed_attempts,
    has_valid_cookie,
    same_secret,
    throttled,
)
from app.lti.errors import LtiError, PlatformError
from app.lti.http import origin
from app.lti.keys import jwks
from app.lti.launch import DEEP_LINKING_REQUEST, Launch
from app.lti.registration import Registration, ToolSite, register
from app.lti.store import check_registration, tool_keys
from app.lti.tool import LinkError, LtiTool, frame_origins, platform_name
from app.routers.pages import TRACK_LABELS, launched_exercise_page, render

router = APIRouter(prefix="/lti", tags=["lti"], include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}
MAX_TOKEN_FIELD = 256  # characters of an operator token typed into the registration page


def _tool(request: Request) -> LtiTool:
    tool: LtiTool = request.app.state.lti
    return tool


def tool_site(request: Request) -> ToolSite:
    """Where the tool answers: DRILL_PUBLIC_URL, or the address this request came to."""
    public: str | None = request.app.state.settings.public_url
    return ToolSite(public or str(request.base_url).rstrip("/"))


def _page(
    request: Request,
    name: str,
    status_code: int = 200,
    framers: str | None = None,
    **context: Any,
) -> HTMLResponse:
    """An LTI page, never cached; ``framers`` (origins) may show it in an iframe."""
    if framers:
        request.scope["state"]["frame_ancestors"] = framers
    response = render(request, name, status_code=status_code, **context)
    response.headers.update(NO_STORE)
    return response


def _refused(
    request: Request, status_code: int, title: str, message: str, framers: str | None = None
) -> HTMLResponse:
    context = {"code": status_code, "title": title, "message": message}
    return _page(request, "lti_error.html", status_code, framers, **context)


def _unverified_issuer(id_token: str | None) -> str | None:
    """The ``iss`` a token claims, unchecked: it only picks whom a refusal page may be
    shown to (inside the LMS's frame); nothing is believed from it."""
    try:
        payload = (id_token or "").split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None
    issuer = claims.get("iss") if isinstance(claims, dict) else None
    return issuer if isinstance(issuer, str) and len(issuer) <= 255 else None


async def _framers_of(request: Request, issuer: str | None) -> str | None:
    """The origins of a registered platform ``issuer`` (for a refusal page in its frame)."""
    if not issuer:
        return None
    registrations = _tool(request).registrations
    stored = await run_in_threadpool(registrations.all)
    found = [s.registration for s in stored if s.registration.issuer == issuer]
    return " ".join(dict.fromkeys(frame_origins(r) for r in found)) or None


# --- login and launch ---


@router.api_route("/login", methods=["GET", "POST"], response_class=HTMLResponse)
async def login(request: Request) -> Response:
    params = dict(request.query_params)
    if request.method == "POST":
        params.update(await form_fields(request))
    try:
        url = await run_in_threadpool(_tool(request).login, params, tool_site(request))
    except LtiError as error:
        framers = await _framers_of(request, params.get("iss"))
        return _refused(request, 400, "This launch cannot start", error.message, framers)
    return RedirectResponse(url, status_code=302, headers=NO_STORE)


@router.post("/launch", response_class=HTMLResponse)
async def launch(request: Request) -> Response:
    fields = await form_fields(request)
    id_token, state = fields.get("id_token"), fields.get("state")
    tool = _tool(request)
    if not id_token or not state:
        missing = " and ".join(n for n, v in (("id_token", id_token), ("state", state)) if not v)
        return _refused(
            request,
            400,
            "This is not a launch",
            f"The request has no {missing}: a launch comes from your course in the LMS.",
        )
    try:
        believed, registration = await run_in_threadpool(tool.launch, id_token, state)
    except PlatformError as error:
        framers = await _framers_of(request, _unverified_issuer(id_token))
        return _refused(request, 502, "Drill could not check this launch", error.message, framers)
    except LtiError as error:
        framers = await _framers_of(request, _unverified_issuer(id_token))
        return _refused(request, 401, "The launch was refused", error.message, framers)
    framers = frame_origins(registration)
    try:
        if believed.message_type == DEEP_LINKING_REQUEST:
            return await _picker(request, tool, believed, registration, framers)
        return await _open_exercise(request, tool, believed, registration, framers)
    except LinkError as error:
        status = 403 if believed.message_type == DEEP_LINKING_REQUEST else 400
        return _refused(request, status, "Drill cannot open this link", error.message, framers)


async def _open_exercise(
    request: Request, tool: LtiTool, launch: Launch, registration: Registration, framers: str
) -> Response:
    entry = await run_in_threadpool(tool.enter, launch)
    accounts: Accounts = request.app.state.accounts
    token, expires = await run_in_threadpool(accounts.start_session, entry.account, "launch")
    replaced = await _cookie_account(request, accounts)
    where = platform_name(registration.issuer)
    if entry.course is not None:
        where += f", {entry.course.title}"
    banner = f"Signed in from {where} as {entry.account.display_name} ({entry.role})."
    if replaced is not None and replaced.id != entry.account.id:
        banner += (
            f" This browser was signed in to Drill as {replaced.display_name}: "
            f"this launch replaced that session."
        )
    request.scope["state"]["frame_ancestors"] = framers
    response = await launched_exercise_page(
        request, entry.exercise, entry.track, entry.account, token, banner
    )
    response.headers.update(NO_STORE)
    # For a launch in a new tab; in an iframe the browser keeps it out (SameSite), and
    # the page sends its session in a header instead.
    set_session_cookie(response, request, token, expires)
    return response


async def _cookie_account(request: Request, accounts: Accounts) -> Account | None:
    """Whose session the browser's cookie holds, if it sent one (a same-site LMS)."""
    for value in cookie_values(request.scope["headers"], SESSION_COOKIE)[:2]:
        found = await run_in_threadpool(accounts.session_account, value)
        if found is not None:
            return found
    return None


async def _picker(
    request: Request, tool: LtiTool, launch: Launch, registration: Registration, framers: str
) -> Response:
    token = tool.deep_link_token(launch)  # LinkError for a learner
    await run_in_threadpool(_instructor_enters, tool, launch)
    service = request.app.state.service
    choices = [
        (e.slug, e.meta.title, [(t, TRACK_LABELS.get(t, t)) for t in e.tracks])
        for e in service.exercises()
    ]
    return _page(
        request,
        "lti_deep_link.html",
        framers=framers,
        token=token,
        choices=choices,
        platform=platform_name(registration.issuer),
        context=launch.context,
    )


def _instructor_enters(tool: LtiTool, launch: Launch) -> None:
    """The course and the instructor's membership, so that the picked exercise becomes
    an assignment there (its id names the LMS's gradebook column)."""
    account = tool.account_for(launch.issuer, launch.subject, launch.name, launch.email)
    course = tool.course_for(launch)
    if course is not None:
        tool.courses.add_member(course, account, launch.role, "lti")


@router.post("/deep-link", response_class=HTMLResponse)
async def deep_link(request: Request) -> Response:
    fields = await form_fields(request)
    exercise, _, track = fields.get("task", "").partition(":")
    tool = _tool(request)
    try:
        answer, launch = await run_in_threadpool(
            tool.deep_link, fields.get("token", ""), exercise, track, tool_site(request)
        )
    except LinkError as error:
        return _refused(request, 400, "Nothing was added", error.message)
    except LtiError as error:
        return _refused(request, 401, "The exercise picker was refused", error.message)
    registration = await run_in_threadpool(tool.registrations.find, launch.issuer, launch.client_id)
    framers = frame_origins(registration) if registration else None
    target = origin(answer.return_url)
    if not target or not _plain_origin(target):
        return _refused(
            request, 400, "Nothing was added", "the LMS gave no usable return URL", framers
        )
    request.scope["state"]["form_action"] = target
    return _page(
        request,
        "lti_deep_link_return.html",
        framers=framers,
        action=answer.return_url,
        fields=answer.fields,
        platform=platform_name(launch.issuer),
    )


def _plain_origin(value: str) -> bool:
    parts = urlsplit(value)
    host = parts.hostname or ""
    return parts.scheme in ("http", "https") and all(c.isalnum() or c in ".-:[]" for c in host)


# --- the tool's keys ---


@router.get("/jwks")
async def jwks_route(request: Request) -> Response:
    keys = await run_in_threadpool(tool_keys, _tool(request).store)
    return JSONResponse(jwks(*keys), headers={"Cache-Control": "max-age=300"})


# --- registration: dynamic, and by hand ---


def _operator(request: Request, typed: str | None = None) -> bool | None:
    """Whether the request is the operator's: the instructor cookie, or the instructor
    token typed into the page (an iframe inside the LMS gets no cookie). None: there is
    no operator (DRILL_INSTRUCTOR_TOKEN unset)."""
    token = configured_token(request)
    if token is None:
        return None
    if has_valid_cookie(request, token):
        return True
    if typed:
        if throttled(request) is not None:
            return False
        if same_secret(typed[:MAX_TOKEN_FIELD], token):
            return True
        failed_attempts(request).failed(get_client(request))
    return False


def _no_operator(request: Request, framers: str | None = None) -> HTMLResponse:
    return _refused(
        request,
        404,
        "Registration is disabled",
        "Registering an LMS is for the operator of this Drill: set DRILL_INSTRUCTOR_TOKEN.",
        framers,
    )


def _registration_framers(openid_configuration: str) -> str | None:
    found = origin(openid_configuration)
    return found if found and _plain_origin(found) else None


@router.get("/register", response_class=HTMLResponse)
async def register_page(request: Request) -> Response:
    """LTI Dynamic Registration starts here: the platform opens this page (often in an
    iframe) with ``openid_configuration`` and ``registration_token``."""
    configuration = request.query_params.get("openid_configuration", "")
    framers = _registration_framers(configuration)
    operator = _operator(request)
    if operator is None:
        return _no_operator(request, framers)
    if not framers:
        return _refused(
            request,
            400,
            "Not a registration",
            "The LMS opens this page with its openid_configuration URL; this request has none.",
        )
    return _page(
        request,
        "lti_register.html",
        framers=framers,
        operator=operator,
        configuration=configuration,
        registration_token=request.query_params.get("registration_token", ""),
        site=tool_site(request),
    )


@router.post("/register", response_class=HTMLResponse)
async def register_submit(request: Request) -> Response:
    fields = await form_fields(request)
    configuration = fields.get("openid_configuration", "")
    framers = _registration_framers(configuration)
    operator = _operator(request, fields.get("operator_token"))
    if operator is None:
        return _no_operator(request, framers)
    context = {
        "configuration": configuration,
        "registration_token": fields.get("registration_token", ""),
        "site": tool_site(request),
    }
    if not operator:
        return _page(
            request,
            "lti_register.html",
            401,
            framers,
            operator=False,
            error="That is not the instructor token of this Drill.",
            **context,
        )
    if not framers:
        return _refused(request, 400, "Not a registration", "No openid_configuration URL.")
    tool = _tool(request)
    try:
        registration = await run_in_threadpool(
            register,
            configuration,
            fields.get("registration_token") or None,
            tool_site(request),
            client=tool.services.client,
        )
        await run_in_threadpool(tool.registrations.add, registration)
    except LtiError as error:
        return _page(
            request,
            "lti_register.html",
            400 if not isinstance(error, PlatformError) else 502,
            framers,
            operator=True,
            error=f"The registration failed: {error.message}",
            **context,
        )
    return _page(
        request,
        "lti_registered.html",
        framers=framers,
        registration=registration,
        platform_origin=framers,
    )


@router.get("/registrations", response_class=HTMLResponse)
async def registrations_page(request: Request) -> Response:
    return await _registrations(request)


async def _registrations(request: Request, status_code: int = 200, **context: Any) -> Response:
    operator = _operator(request)
    if operator is None:
        return _no_operator(request)
    if not operator:
        return RedirectResponse("/instructor/login", status_code=303)
    stored = await run_in_threadpool(_tool(request).registrations.all)
    return _page(
        request,
        "lti_registrations.html",
        status_code,
        registrations=stored,
        site=tool_site(request),
        **context,
    )


@router.post("/registrations", response_class=HTMLResponse)
async def add_registration(request: Request) -> Response:
    if not _operator(request):
        return await _registrations(request)  # the same refusal as the page's
    fields = {k: v.strip() for k, v in (await form_fields(request)).items()}
    registration = Registration(
        issuer=fields.get("issuer", ""),
        client_id=fields.get("client_id", ""),
        deployment_ids=tuple(
            d.strip() for d in fields.get("deployment_ids", "").replace(",", " ").split() if d
        ),
        auth_login_url=fields.get("auth_login_url", ""),
        auth_token_url=fields.get("auth_token_url", ""),
        key_set_url=fields.get("key_set_url", ""),
        auth_token_audience=fields.get("auth_token_audience") or None,
    )
    try:
        check_registration(registration)
        await run_in_threadpool(_tool(request).registrations.add, registration)
    except LtiError as error:
        return await _registrations(request, 422, error=error.message, values=fields)
    return await _registrations(
        request, added=f"{registration.issuer} (client {registration.client_id}) is registered."
    )
