"""Who may see the instructor dashboard: the holder of ``DRILL_INSTRUCTOR_TOKEN``.

- Unset (or empty): the dashboard does not exist; every page and API route answers 404.
- API routes: ``Authorization: Bearer <token>`` or the instructor cookie, else 401 JSON
  with ``WWW-Authenticate: Bearer``.
- Pages: the ``drill_instructor`` cookie set by the login form, else a 303 to the form.
  The cookie holds its expiry time and an HMAC of it keyed by the token, never the token
  itself: it can be checked without storing anything, it expires on the server's clock
  (a copied cookie does not outlive ``COOKIE_MAX_AGE``), and it is void once the token
  changes.

Every comparison of a secret uses ``hmac.compare_digest``, and a client that sent ten
wrong tokens within a minute gets 429 until the oldest is a minute old.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable

from fastapi import Depends, Request
from fastapi.responses import JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.cookies import INSTRUCTOR_COOKIE, cookie_values
from app.deps import get_client
from app.errors import ApiError, NotFound, RateLimited

COOKIE = INSTRUCTOR_COOKIE
COOKIE_MAX_AGE = 12 * 3600  # seconds; the browser forgets the login after a working day
DISABLED = "the instructor dashboard is disabled: set DRILL_INSTRUCTOR_TOKEN"
_COOKIE_MESSAGE = b"drill-instructor"
# Digits of a plausible expiry stamp (seconds since 1970 have 10 until the year 2286): a
# longer one is malformed, and int() of a few thousand digits would raise, not refuse.
MAX_STAMP_DIGITS = 12
MAX_FAILURES, FAILURE_WINDOW = 10, 60.0  # wrong tokens per client address and seconds
MAX_CLIENTS = 10_000

bearer_scheme = HTTPBearer(
    auto_error=False,
    scheme_name="InstructorToken",
    description="The value of DRILL_INSTRUCTOR_TOKEN (or the cookie of /instructor/login).",
)


class Unauthorized(ApiError):
    status, code = 401, "unauthorized"

    def response(self) -> JSONResponse:
        answer = super().response()
        answer.headers["WWW-Authenticate"] = "Bearer"
        return answer


class FailedAttempts:
    """Wrong tokens per client: past ``limit`` within ``window`` seconds, the client must
    wait before its next guess is even compared (right or wrong, it gets 429)."""

    def __init__(
        self,
        limit: int = MAX_FAILURES,
        window: float = FAILURE_WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        stamps = self._failures.pop(client, None) or deque()
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        self._failures[client] = stamps
        while len(self._failures) > MAX_CLIENTS:
            self._failures.popitem(last=False)
        return stamps

    def wait(self, client: str) -> int | None:
        """Seconds until ``client`` may try again, or None when it may now."""
        now = self.clock()
        with self._lock:
            stamps = self._recent(client, now)
            if len(stamps) < self.limit:
                return None
            return max(1, math.ceil(stamps[0] + self.window - now))

    def failed(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            self._recent(client, now).append(now)


def failed_attempts(request: Request) -> FailedAttempts:
    """The app's record of wrong instructor tokens (made on first use)."""
    state = request.app.state
    attempts: FailedAttempts | None = getattr(state, "instructor_failed_attempts", None)
    if attempts is None:
        attempts = state.instructor_failed_attempts = FailedAttempts()
    return attempts


def throttled(request: Request) -> RateLimited | None:
    """The 429 to answer when this client guessed wrong too often, else None."""
    wait = failed_attempts(request).wait(get_client(request))
    if wait is None:
        return None
    return RateLimited(f"too many wrong instructor tokens; try again in {wait} s", retry_after=wait)


def configured_token(request: Request) -> str | None:
    """The instructor token, or None when the dashboard is disabled."""
    secret = request.app.state.settings.instructor_token
    token: str = secret.get_secret_value() if secret is not None else ""
    return token or None


def _utf8(text: str) -> bytes:
    # surrogatepass: a token read from a non-UTF-8 environment holds lone surrogates,
    # which a strict encode would turn into a 500 for whoever sends a cookie.
    return text.encode("utf-8", "surrogatepass")


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison of two secrets (as UTF-8 bytes)."""
    return hmac.compare_digest(_utf8(given), _utf8(expected))


def cookie_value(token: str, expires: int | None = None) -> str:
    """What the login cookie holds for ``token``: ``<expiry>.<HMAC of it>``, not the token."""
    if expires is None:
        expires = int(time.time()) + COOKIE_MAX_AGE
    message = _COOKIE_MESSAGE + b":" + str(expires).encode()
    mac = hmac.new(_utf8(token), message, hashlib.sha256).hexdigest()
    return f"{expires}.{mac}"


def has_valid_cookie(request: Request, token: str) -> bool:
    """Whether the request carries a live login cookie for ``token``. Any malformed value
    (no separator, a stamp that is not 1 to ``MAX_STAMP_DIGITS`` ASCII digits, any bytes
    at all) is simply not a login, like a wrong one: never an error."""
    values = cookie_values(request.scope["headers"], COOKIE)  # not request.cookies: app/cookies.py
    if not values:
        return False
    value = values[0]
    stamp = value.partition(".")[0]
    if not (len(stamp) <= MAX_STAMP_DIGITS and stamp.isascii() and stamp.isdigit()):
        return False  # malformed: nothing about the token to learn from it
    if int(stamp) <= time.time():
        return False  # expired
    return same_secret(value, cookie_value(token, int(stamp)))


def require_instructor(
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(bearer_scheme),  # noqa: B008
) -> None:
    """Dependency of the instructor API: 404 when disabled, 401 without the token."""
    token = configured_token(request)
    if token is None:
        raise NotFound(DISABLED)
    if credentials is not None:
        if (refusal := throttled(request)) is not None:
            raise refusal
        if same_secret(credentials.credentials, token):
            return
    if has_valid_cookie(request, token):
        return
    if credentials is None:
        raise Unauthorized("this route needs the instructor token: Authorization: Bearer <token>")
    failed_attempts(request).failed(get_client(request))
    raise Unauthorized("the instructor token is wrong")


def set_login_cookie(response: Response, request: Request, token: str) -> None:
    """Set the instructor cookie on ``response`` (Secure when served over https)."""
    response.set_cookie(
        COOKIE,
        cookie_value(token),
        max_age=COOKIE_MAX_AGE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
