"""Calls the tool makes to the platform on its own: an OAuth2 access token (client
credentials, authenticated by a JWT the tool signs), then Assignment and Grade Services
(line items, scores) and Names and Role Provisioning (the course's members).

Tokens are cached per registration and scope until shortly before they expire. Every
failure is a ``PlatformError`` whose ``retryable`` tells the score outbox whether to try
again; a refused token (401) is forgotten, so the retry asks for a new one.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from app.lti import http
from app.lti.errors import PlatformError
from app.lti.keys import ToolKey
from app.lti.registration import Registration
from app.lti.roles import CourseRole, course_role

SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_RESULT = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_MEMBERSHIPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ASSERTION_LIFETIME = 300  # seconds
TOKEN_MARGIN = 60  # seconds before expiry a cached token stops being used
MAX_PAGES = 1000


@dataclass(frozen=True)
class LineItem:
    """A gradebook column; ``resource_id`` is Drill's own name for it (slug and track)."""

    label: str
    score_maximum: float
    resource_id: str
    tag: str | None = None

    def as_json(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "label": self.label,
            "scoreMaximum": self.score_maximum,
            "resourceId": self.resource_id,
        }
        if self.tag:
            item["tag"] = self.tag
        return item


@dataclass(frozen=True)
class Score:
    """One learner's result. Keep ``timestamp`` (timezone-aware) fixed across retries:
    platforms ignore a score no newer than the one they have."""

    user_id: str
    score_given: float
    score_maximum: float
    timestamp: datetime
    comment: str | None = None
    activity_progress: str = "Completed"
    grading_progress: str = "FullyGraded"

    def as_json(self) -> dict[str, Any]:
        if self.timestamp.utcoffset() is None:
            raise ValueError("a score's timestamp needs a timezone")
        score: dict[str, Any] = {
            "userId": self.user_id,
            "scoreGiven": self.score_given,
            "scoreMaximum": self.score_maximum,
            "activityProgress": self.activity_progress,
            "gradingProgress": self.grading_progress,
            "timestamp": self.timestamp.isoformat(),
        }
        if self.comment:
            score["comment"] = self.comment
        return score


@dataclass(frozen=True)
class Member:
    user_id: str
    role: CourseRole
    roles: tuple[str, ...]
    status: str = "Active"
    name: str | None = None
    email: str | None = None


class PlatformServices:
    """AGS and NRPS for every registration, signing with the tool's ``key``; one per
    process (thread-safe), so the token cache is shared."""

    def __init__(
        self,
        key: ToolKey,
        client: httpx.Client | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.key = key
        self.client = client or http.new_client()
        self.clock = clock
        self._tokens: dict[tuple[str, str, str], tuple[str, float]] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the HTTP client (also one given to the constructor)."""
        self.client.close()

    def access_token(self, registration: Registration, scopes: Iterable[str]) -> str:
        """A bearer token for ``scopes``, from the cache while it has a minute left."""
        scope = " ".join(sorted(set(scopes)))
        cache_key = (registration.issuer, registration.client_id, scope)
        with self._lock:
            cached = self._tokens.get(cache_key)
        if cached and cached[1] > self.clock():
            return cached[0]
        now = int(self.clock())
        assertion = self.key.sign(
            {
                "iss": registration.client_id,
                "sub": registration.client_id,
                "aud": registration.auth_token_audience or registration.auth_token_url,
                "iat": now,
                "exp": now + ASSERTION_LIFETIME,
                "jti": secrets.token_urlsafe(16),
            }
        )
        answer = http.call(
            self.client,
            "POST",
            registration.auth_token_url,
            what="asking for an access token",
            headers={"Accept": "application/json"},
            form={
                "grant_type": "client_credentials",
                "client_assertion_type": ASSERTION_TYPE,
                "client_assertion": assertion,
                "scope": scope,
            },
        ).json_object()
        token, lifetime = answer.get("access_token"), answer.get("expires_in", 3600)
        if not isinstance(token, str) or not token or not isinstance(lifetime, int | float):
            raise PlatformError("the platform's token answer has no access_token", retryable=False)
        with self._lock:
            self._tokens[cache_key] = (token, now + lifetime - min(TOKEN_MARGIN, lifetime / 2))
        return token

    def post_score(self, registration: Registration, lineitem_url: str, score: Score) -> None:
        """POST the score to ``{lineitem}/scores`` (the query string stays at the end)."""
        parts = urlsplit(lineitem_url)
        url = urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))
        self._call(
            registration,
            [SCOPE_SCORE],
            "POST",
            url,
            what="posting the score",
            headers={"Content-Type": SCORE_TYPE},
            json_body=score.as_json(),
        )

    def line_item(self, registration: Registration, lineitems_url: str, item: LineItem) -> str:
        """The URL of the line item with ``item.resource_id`` in the container, made if
        there is none yet."""
        url = str(httpx.URL(lineitems_url).copy_merge_params({"resource_id": item.resource_id}))
        for page in self._pages(registration, [SCOPE_LINEITEM], url, LINEITEMS_TYPE, "line items"):
            for found in page if isinstance(page, list) else []:
                if (
                    isinstance(found, dict)
                    and found.get("resourceId") == item.resource_id
                    and isinstance(found.get("id"), str)
                ):
                    return str(found["id"])
        created = self._call(
            registration,
            [SCOPE_LINEITEM],
            "POST",
            lineitems_url,
            what="creating the line item",
            headers={"Content-Type": LINEITEM_TYPE, "Accept": LINEITEM_TYPE},
            json_body=item.as_json(),
        ).json_object()
        if not isinstance(created.get("id"), str):
            raise PlatformError("the platform's new line item has no id", retryable=False)
        return str(created["id"])

    def members(self, registration: Registration, memberships_url: str) -> list[Member]:
        """Every member of the course, page after page (``Link: rel="next"``)."""
        members = []
        pages = self._pages(
            registration, [SCOPE_MEMBERSHIPS], memberships_url, MEMBERSHIPS_TYPE, "members"
        )
        for page in pages:
            listed = page.get("members") if isinstance(page, dict) else None
            for member in listed if isinstance(listed, list) else []:
                if not isinstance(member, dict) or not isinstance(member.get("user_id"), str):
                    continue
                roles = tuple(role for role in member.get("roles") or [] if isinstance(role, str))
                members.append(
                    Member(
                        user_id=member["user_id"],
                        role=course_role(roles),
                        roles=roles,
                        status=str(member.get("status") or "Active"),
                        name=member.get("name") if isinstance(member.get("name"), str) else None,
                        email=member.get("email") if isinstance(member.get("email"), str) else None,
                    )
                )
        return members

    def _pages(
        self, registration: Registration, scopes: list[str], url: str, accept: str, what: str
    ) -> Iterator[Any]:
        """Each page's JSON, following next links on the first page's site only (the
        bearer token goes with every request)."""
        site, seen = http.origin(url), set[str]()
        next_url: str | None = url
        while next_url is not None:
            if http.origin(next_url) != site:
                raise PlatformError(
                    f"the platform's next page of {what} is on another site ({next_url})",
                    retryable=False,
                )
            if next_url in seen or len(seen) >= MAX_PAGES:
                raise PlatformError(f"the pages of {what} do not end", retryable=False)
            seen.add(next_url)
            answer = self._call(
                registration,
                scopes,
                "GET",
                next_url,
                what=f"reading {what}",
                headers={"Accept": accept},
            )
            yield answer.json()
            next_url = answer.next_link()

    def _call(
        self,
        registration: Registration,
        scopes: list[str],
        method: str,
        url: str,
        *,
        what: str,
        headers: dict[str, str],
        json_body: Any = None,
    ) -> http.Answer:
        token = self.access_token(registration, scopes)
        try:
            return http.call(
                self.client,
                method,
                url,
                what=what,
                headers={**headers, "Authorization": f"Bearer {token}"},
                json_body=json_body,
            )
        except PlatformError as error:
            if error.status != 401:
                raise
            with self._lock:  # the platform forgot the token: the retry asks for a new one
                self._tokens = {k: v for k, v in self._tokens.items() if v[0] != token}
            raise PlatformError(error.message, retryable=True, status=401) from None
