"""One way to call a platform: synchronous httpx with a timeout, no redirects, a bounded
answer, and every failure turned into a ``PlatformError`` that says whether a retry can help.

Blocking on purpose: the caller runs it off the event loop (a thread), like the database.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from app.lti.errors import PlatformError

TIMEOUT = 10.0  # seconds, for connecting and for each read
MAX_ANSWER = 4 * 1024 * 1024  # bytes: a platform's answer is read no further
RETRYABLE = {408, 425, 429, 500, 502, 503, 504}
_LINK = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,]+)*)")


def new_client(timeout: float = TIMEOUT) -> httpx.Client:
    """A client for platform calls; share one per process (it is thread-safe)."""
    return httpx.Client(timeout=timeout, follow_redirects=False)


@dataclass(frozen=True)
class Answer:
    """A platform's answer, read in full (within ``MAX_ANSWER``)."""

    url: str
    status: int
    headers: httpx.Headers
    body: bytes
    what: str

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            raise PlatformError(
                f"the platform's answer to {self.what} ({self.url}) is not JSON", retryable=False
            ) from None

    def json_object(self) -> dict[str, Any]:
        value = self.json()
        if not isinstance(value, dict):
            raise PlatformError(
                f"the platform's answer to {self.what} ({self.url}) is not a JSON object",
                retryable=False,
            )
        return value

    def next_link(self) -> str | None:
        """The ``Link: <...>; rel="next"`` target, absolute, or None on the last page."""
        for header in self.headers.get_list("link"):
            for target, params in _LINK.findall(header):
                rels = re.search(r'rel\s*=\s*"?([^";]+)"?', params)
                if rels and "next" in str(rels.group(1)).split():
                    return urljoin(self.url, str(target).strip())
        return None


def call(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    what: str,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    form: dict[str, str] | None = None,
) -> Answer:
    """Send one request; a 2xx answer comes back, anything else raises ``PlatformError``.
    ``what`` names the call in messages ("posting the score")."""
    try:
        with client.stream(
            method, url, headers=headers, json=json_body, data=form, follow_redirects=False
        ) as response:
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > MAX_ANSWER:
                    raise PlatformError(
                        f"the platform's answer to {what} ({url}) is over {MAX_ANSWER} bytes",
                        retryable=False,
                        status=response.status_code,
                    )
    except (httpx.InvalidURL, httpx.UnsupportedProtocol):
        raise PlatformError(f"{url!r} is not an http(s) URL ({what})", retryable=False) from None
    except httpx.TimeoutException:
        raise PlatformError(
            f"the platform did not answer {what} ({url}) in time", retryable=True
        ) from None
    except httpx.TransportError as error:
        raise PlatformError(
            f"could not reach the platform for {what} ({url}): {error}", retryable=True
        ) from None
    answer = Answer(url, response.status_code, response.headers, bytes(body), what)
    if not 200 <= answer.status < 300:
        detail = answer.body[:300].decode("utf-8", "replace").strip()
        raise PlatformError(
            f"the platform answered {answer.status} to {what} ({url})"
            + (f": {detail}" if detail else ""),
            retryable=answer.status in RETRYABLE,
            status=answer.status,
        )
    return answer


def origin(url: str) -> str:
    """scheme://host:port of a URL (default ports filled in): what two URLs must share to
    be one site. An unparsable URL has the origin "" and so matches nothing real."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port or {"http": 80, "https": 443}.get(scheme)
    except ValueError:
        return ""
    return f"{scheme}://{parts.hostname}:{port}" if parts.hostname else ""
