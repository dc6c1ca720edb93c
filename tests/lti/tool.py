"""A stand-in for Drill's /lti routes, built only from app.lti, so the protocol runs over
real HTTP before the routes exist: ``/lti/jwks`` (which the platform fetches to check the
tool's signatures), ``/lti/login`` (redirects to the platform) and ``/lti/launch`` (checks
the state and the id_token, answers the launch as JSON or the refusal's message).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from app.lti.errors import LtiError
from app.lti.keys import ToolKey, jwks
from app.lti.launch import Launch, validate_launch
from app.lti.login import begin_login, take_pending
from app.lti.memory import MemoryLoginStates, MemoryNonces, MemoryRegistrations
from app.lti.platform_keys import PlatformKeys
from app.lti.registration import ToolSite
from tests.lti.platform import read_form, read_params, serve


class Tool:
    def __init__(self, key: ToolKey) -> None:
        self.key = key
        self.site = ToolSite("http://unstarted.invalid")
        self.registrations = MemoryRegistrations()
        self.nonces = MemoryNonces()
        self.states = MemoryLoginStates()
        self.platform_keys = PlatformKeys(min_refetch=0)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/lti/jwks", self.jwks),
                Route("/lti/login", self.login, methods=["GET", "POST"]),
                Route("/lti/launch", self.launch, methods=["POST"]),
            ]
        )

    def serving_at(self, base: str) -> Tool:
        self.site = ToolSite(base)
        return self

    @contextmanager
    def running(self) -> Iterator[Tool]:
        with serve(self.app()) as base:
            yield self.serving_at(base)

    def validate(self, id_token: str, expected_nonce: str | None = None) -> Launch:
        return validate_launch(
            id_token,
            registrations=self.registrations,
            platform_keys=self.platform_keys,
            nonces=self.nonces,
            expected_nonce=expected_nonce,
        )

    async def jwks(self, request: Request) -> Response:
        return JSONResponse(jwks(self.key))

    async def login(self, request: Request) -> Response:
        params = await read_params(request)
        try:
            redirect = begin_login(params, self.registrations, self.site)
        except LtiError as error:
            return JSONResponse({"error": error.message}, 400)
        self.states.put(redirect.pending)
        return RedirectResponse(redirect.url, 302)

    async def launch(self, request: Request) -> Response:
        form = await read_form(request)
        try:
            pending = take_pending(self.states, str(form.get("state") or ""))
            launch = await run_in_threadpool(
                self.validate, str(form.get("id_token")), pending.nonce
            )
        except LtiError as error:
            return JSONResponse({"error": error.message}, 400)
        return JSONResponse(dataclasses.asdict(launch))
