"""In-memory stores behind the LTI protocols: for tests, and for one process where losing
them on a restart only costs a login started before it (the database versions come later).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from app.lti.login import PendingLogin
from app.lti.registration import Registration


class MemoryRegistrations:
    def __init__(self, registrations: Iterable[Registration] = ()) -> None:
        self._all: list[Registration] = list(registrations)

    def add(self, registration: Registration) -> None:
        self._all = [
            known
            for known in self._all
            if (known.issuer, known.client_id) != (registration.issuer, registration.client_id)
        ] + [registration]

    def find(self, issuer: str, client_id: str | None = None) -> Registration | None:
        found = [
            known
            for known in self._all
            if known.issuer == issuer and client_id in (None, known.client_id)
        ]
        return found[0] if len(found) == 1 else None


class MemoryNonces:
    """Nonces seen, each forgotten once its token has expired."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()
        self.clock = clock

    def use_once(self, nonce: str, expires_at: float) -> bool:
        with self._lock:
            now = self.clock()
            self._seen = {seen: until for seen, until in self._seen.items() if until > now}
            if nonce in self._seen:
                return False
            self._seen[nonce] = expires_at
            return True


class MemoryLoginStates:
    def __init__(self) -> None:
        self._pending: dict[str, PendingLogin] = {}
        self._lock = threading.Lock()

    def put(self, pending: PendingLogin) -> None:
        with self._lock:
            self._pending[pending.state] = pending

    def take(self, state: str, now: float) -> PendingLogin | None:
        with self._lock:
            self._pending = {s: p for s, p in self._pending.items() if p.expires_at > now}
            return self._pending.pop(state, None)
