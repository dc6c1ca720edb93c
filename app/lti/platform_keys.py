"""The platforms' public keys, fetched from each registration's JWKS URL and cached per URL
for ``ttl`` seconds, so a launch costs no HTTP call in the common case. A token naming a
``kid`` the cached set lacks (the platform rotated its keys) refetches the set once; a
forger sending made-up ``kid``s gets at most one refetch per URL every ``min_refetch``
seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey

from app.lti import http
from app.lti.errors import LtiError, PlatformError


@dataclass(frozen=True)
class _Fetched:
    keys: KeySet
    at: float


class PlatformKeys:
    """A thread-safe cache of platform key sets; one per process."""

    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        ttl: float = 300.0,
        min_refetch: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client or http.new_client()
        self.ttl = ttl
        self.min_refetch = min_refetch
        self.clock = clock
        self._sets: dict[str, _Fetched] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the HTTP client (also one given to the constructor)."""
        self.client.close()

    def key(self, url: str, kid: str | None) -> RSAKey:
        """The RSA key ``kid`` of the set at ``url`` (without a ``kid``: the set's only
        key). Raises ``LtiError`` when there is none, ``PlatformError`` when the set
        cannot be fetched."""
        with self._lock:
            cached = self._sets.get(url)
        now = self.clock()
        if cached is None or now - cached.at >= self.ttl:
            cached = self._fetch(url)
        found = _pick(cached.keys, kid)
        if found is None and self.clock() - cached.at >= self.min_refetch:
            cached = self._fetch(url)
            found = _pick(cached.keys, kid)
        if found is None:
            named = f"kid {kid!r}" if kid else "no kid, and the set holds several keys"
            raise LtiError(f"the launch's signing key ({named}) is not among the platform's keys")
        return found

    def _fetch(self, url: str) -> _Fetched:
        answer = http.call(
            self.client,
            "GET",
            url,
            what="fetching the platform's keys",
            headers={"Accept": "application/json"},
        )
        try:
            keys = KeySet.import_key_set(answer.json_object())  # type: ignore[arg-type]
        except (JoseError, KeyError, TypeError, ValueError):
            raise PlatformError(
                f"the platform's key set at {url} is not a valid JWKS", retryable=False
            ) from None
        fetched = _Fetched(keys, self.clock())
        with self._lock:
            self._sets[url] = fetched
        return fetched


def _pick(keys: KeySet, kid: str | None) -> RSAKey | None:
    rsa = [key for key in keys if isinstance(key, RSAKey) and key.get("use") in (None, "sig")]
    if kid is None:
        return rsa[0] if len(rsa) == 1 else None
    return next((key for key in rsa if key.kid == kid), None)
