"""Every error answer of the API is JSON: ``{"error": code, "message": text, ...}``.

::

    ApiError                    an answer the API chose to give
    ├── NotFound          404   unknown exercise, track-less hint, submission, draft
    ├── Forbidden         403   not yet: a reference solution before its track is solved
    ├── TooLarge          413   code (or body) over the size limit
    ├── Invalid           422   a body that parses but makes no sense (unknown track)
    ├── RateLimited       429   too many submissions from this client; Retry-After
    └── Unavailable       503   queue full, database unavailable; Retry-After
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.store import StoreUnavailable
from graders.errors import PoolBusy, QueueUnavailable, ReferenceFailure, UnknownExercise

log = logging.getLogger("drill.app")


class ApiError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, retry_after: int | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.extra = extra

    def response(self) -> JSONResponse:
        headers = {"Retry-After": str(self.retry_after)} if self.retry_after else None
        body = {"error": self.code, "message": self.message, **self.extra}
        if self.retry_after:
            body["retry_after"] = self.retry_after
        return JSONResponse(body, status_code=self.status, headers=headers)


class NotFound(ApiError):
    status, code = 404, "not_found"


class Forbidden(ApiError):
    status, code = 403, "forbidden"


class TooLarge(ApiError):
    status, code = 413, "too_large"


class Invalid(ApiError):
    status, code = 422, "invalid_request"


class RateLimited(ApiError):
    status, code = 429, "rate_limited"


class Unavailable(ApiError):
    status, code = 503, "unavailable"


def _describe(errors: list[Any]) -> str:
    parts = []
    for error in errors[:5]:
        if error.get("type") == "json_invalid":
            reason = str(error.get("ctx", {}).get("error", "")) or str(error.get("msg", ""))
            reason = reason.removeprefix("Invalid JSON: ")
            parts.append(
                f"the body is not valid JSON ({reason})" if reason else "the body is not valid JSON"
            )
            continue
        where = ".".join(str(p) for p in error.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {error.get('msg', 'invalid')}")
    return "; ".join(parts)


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> Response:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> Response:
        errors = [{k: v for k, v in e.items() if k in ("loc", "msg", "type")} for e in exc.errors()]
        return Invalid(f"invalid request: {_describe(errors)}", detail=errors).response()

    @app.exception_handler(UnknownExercise)
    async def unknown(_request: Request, exc: UnknownExercise) -> Response:
        return NotFound(str(exc)).response()

    @app.exception_handler(PoolBusy)
    async def busy(_request: Request, exc: PoolBusy) -> Response:
        return Unavailable(
            "all graders are busy; please try again in a few seconds", retry_after=5
        ).response()

    @app.exception_handler(QueueUnavailable)
    async def queue(_request: Request, exc: QueueUnavailable) -> Response:
        return Unavailable(str(exc), retry_after=exc.retry_after).response()

    @app.exception_handler(StoreUnavailable)
    async def store(_request: Request, exc: StoreUnavailable) -> Response:
        log.error("database unavailable: %s", exc)
        return Unavailable(
            "the database is unavailable right now; nothing was saved, please try again",
            retry_after=10,
        ).response()

    @app.exception_handler(ReferenceFailure)
    async def broken(_request: Request, exc: ReferenceFailure) -> Response:
        log.error("reference failure: %s", exc)
        return Unavailable(
            "this exercise cannot be graded right now (its reference solution failed); "
            "the instructors have been told",
            retry_after=60,
        ).response()

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return NotFound(f"no such path: {request.url.path}").response()
        if exc.status_code == 400:  # a body the JSON parser gave up on (nested too deep, ...)
            return Invalid(
                f"invalid request: the body could not be parsed ({exc.detail})"
            ).response()
        code = "method_not_allowed" if exc.status_code == 405 else "http_error"
        return JSONResponse(
            {"error": code, "message": str(exc.detail)},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )
