"""Slow and greedy clients: deadlines for reading a request, caps on open connections.

uvicorn bounds only the idle time between two requests of a keep-alive connection
(``timeout_keep_alive``, which any byte resets), and its ``limit_concurrency`` answers 503
only once a request's head has arrived. So a client that sends nothing, or trickles a
request's head or body a byte at a time, holds a connection (a descriptor, a parser, a
task) for as long as it likes, and enough of them hold them all. httptools also buffers
a head of any size, slower with each byte: a 300 MiB header held the event loop for 100 s.

:class:`GuardedProtocol` is uvicorn's own httptools protocol with these guards, all on
the connection, before the app sees anything:

- **head**: the request line and headers must arrive within ``header_timeout`` seconds of
  the connection opening, or of the previous answer on a keep-alive connection. A silent
  connection is closed; a partial head gets 408. A head over :data:`MAX_HEAD_BYTES` gets
  431 before it grows any further (the app's own, finer 431s, app/cookies.py, stay below).
- **body**: the body must arrive within ``body_timeout`` seconds of its head: 408 (or a
  plain close, when the app has answered already without reading all of it).
- **connections**: at most ``max_connections`` open at once (503 beyond), and at most
  ``max_connections_per_client`` from one address (429 beyond), unless that address is
  a trusted proxy (DRILL_TRUSTED_PROXIES), behind which many clients share one. A refused
  connection is answered at once and closed when its client has read the answer.

The idle keep-alive timeout is uvicorn's documented option, given as is.
:func:`uvicorn_options` is what ``drill serve`` passes to ``uvicorn.run``.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from app.settings import AppSettings

log = logging.getLogger("drill.app")

# A request head (request line and headers) larger than this is refused with 431 while it
# arrives. The app refuses headers over 32 KiB itself (app/cookies.py), with a finer
# message; this bounds what the parser buffers before the app runs. Checked after each
# read of the socket, so a head may pass it by one read before it is refused.
MAX_HEAD_BYTES = 64 * 1024
# A refused or timed-out connection gets its answer, then this long to read it and close
# its end before the server drops it (closing at once, with the client's request still
# unread, would reset the connection and could lose the answer).
LINGER_SECONDS = 2.0
# At most one log line about them in this many seconds, with the counts since.
LOG_EVERY = 10.0
SILENT = "silent (closed)"


@dataclass(frozen=True)
class Guards:
    header_timeout: float
    body_timeout: float
    max_connections: int
    max_per_client: int
    exempt: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]

    @classmethod
    def from_settings(cls, settings: AppSettings) -> Guards:
        return cls(
            header_timeout=settings.header_timeout,
            body_timeout=settings.body_timeout,
            max_connections=settings.max_connections,
            max_per_client=settings.max_connections_per_client,
            exempt=tuple(ipaddress.ip_network(net) for net in settings.trusted_proxies),
        )

    def counted(self, host: str) -> bool:
        """Whether connections from ``host`` count against the cap per client."""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False  # not an IP address (a Unix socket's peer): nobody to count
        return not any(address in net for net in self.exempt)


def uvicorn_options(settings: AppSettings) -> dict[str, Any]:
    """The options of ``uvicorn.run`` that carry these settings."""
    return {"http": protocol_class(settings), "timeout_keep_alive": settings.keep_alive_timeout}


def protocol_class(settings: AppSettings) -> type[GuardedProtocol]:
    """A :class:`GuardedProtocol` with ``settings``' guards (uvicorn makes one per connection)."""

    class DrillHttpProtocol(GuardedProtocol):
        guards = Guards.from_settings(settings)

    return DrillHttpProtocol


def answer(status: int, error: str, message: str, retry_after: int | None = None) -> bytes:
    """A complete HTTP/1.1 answer that closes the connection, JSON like the app's errors."""
    body: dict[str, Any] = {"error": error, "message": message}
    if retry_after:
        body["retry_after"] = retry_after
    content = json.dumps(body).encode()
    head = [
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}",
        "content-type: application/json",
        f"content-length: {len(content)}",
        "x-content-type-options: nosniff",
        "connection: close",
    ]
    if retry_after:
        head.append(f"retry-after: {retry_after}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + content


class _Tally:
    """Refusals counted per kind and logged at most once per LOG_EVERY seconds: a flood of
    slow connections must not become a flood of log lines."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.logged = 0.0

    def note(self, kind: str) -> None:
        self.counts[kind] += 1
        now = time.monotonic()
        if now - self.logged >= LOG_EVERY:
            summary = ", ".join(f"{n} {what}" for what, n in sorted(self.counts.items()))
            # An unused connection a browser opened ahead is closed silently every day.
            level = logging.INFO if set(self.counts) == {SILENT} else logging.WARNING
            log.log(level, "connections closed or refused (slow or greedy clients): %s", summary)
            self.counts.clear()
            self.logged = now


_tally = _Tally()


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the guards of the module docstring."""

    guards: Guards  # set by protocol_class

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        self._in_head = False  # a request head has begun and not yet completed
        self._head_bytes = 0  # bytes read since the current head began (about)
        self._finished = False  # answered (or refused) and closing: nothing more is read
        self._running: RequestResponseCycle | None = None  # the request whose task runs

    # --- the connection ---

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        refusal = self._over_cap()
        if refusal is not None:
            # Not one of the connections served: it neither counts nor is waited for.
            self.connections.discard(self)
            self._finish(refusal)
            return
        self._head_timer = self.loop.call_later(self.guards.header_timeout, self._head_late)

    def _over_cap(self) -> bytes | None:
        guards = self.guards
        if len(self.connections) > guards.max_connections:
            _tally.note("over the connection cap (503)")
            message = "the service has too many open connections; try again in a few seconds"
            return answer(503, "unavailable", message, retry_after=5)
        host = self.client[0] if self.client else None
        if host is None or not guards.counted(host):
            return None
        same = sum(
            1
            for other in self.connections
            if (peer := getattr(other, "client", None)) and peer[0] == host
        )
        if same > guards.max_per_client:
            _tally.note("over the cap per client (429)")
            message = (
                f"too many open connections from your address (at most {guards.max_per_client});"
                " close some and try again"
            )
            return answer(429, "rate_limited", message, retry_after=5)
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        for timer in (self._head_timer, self._body_timer, self._linger_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._body_timer = self._linger_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._finished:
            return  # the rest of a refused request: read, so that closing resets nothing
        self._head_bytes += len(data)
        super().data_received(data)
        over = self._in_head and self._head_bytes > MAX_HEAD_BYTES
        if over and not self._finished and not self.transport.is_closing():
            _tally.note("head too large (431)")
            limit = MAX_HEAD_BYTES // 1024
            message = f"the request line and headers are larger than {limit} KiB"
            self._finish(answer(431, "headers_too_large", message))

    def send_400_response(self, msg: str) -> None:
        # What the parser refuses (uvicorn's msg says no more): JSON, read before the close.
        self._finish(answer(400, "bad_request", "not a valid HTTP request"))

    def handle_websocket_upgrade(self) -> None:
        self._cancel_head()
        self._cancel_body()
        super().handle_websocket_upgrade()

    # --- parser callbacks ---

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._cancel_head()
        super().on_headers_complete()

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        # Here, not at the head: a pipelined request's body is not read until it starts.
        self._running = cycle
        super()._start_asgi_task(cycle, app)
        if cycle.more_body and not self._finished:
            self._cancel_body()
            self._body_timer = self.loop.call_later(self.guards.body_timeout, self._body_late)

    def on_message_complete(self) -> None:
        self._cancel_body()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # The next head is due within the timeout, unless one has arrived already (then its
        # request is running, or queued behind this one).
        cycle = self.cycle
        waiting = cycle is None or cycle.response_complete
        if waiting and not self._finished and not self.transport.is_closing():
            self._cancel_head()
            self._head_timer = self.loop.call_later(self.guards.header_timeout, self._head_late)

    # --- the deadlines ---

    def _head_late(self) -> None:
        self._head_timer = None
        if self._finished or self.transport.is_closing():
            return
        if not self._in_head:  # not a byte of a request: a silent or idle connection
            _tally.note(SILENT)
            self.transport.close()
            return
        _tally.note("head too slow (408)")
        timeout = _seconds(self.guards.header_timeout)
        message = f"the request line and headers did not arrive within {timeout}"
        self._finish(answer(408, "request_timeout", message))

    def _body_late(self) -> None:
        self._body_timer = None
        if self._finished or self.transport.is_closing():
            return
        _tally.note("body too slow (408)")
        if self._running is not None and self._running.response_started:
            self.transport.abort()  # the app answered without the rest: nothing to add
            return
        timeout = _seconds(self.guards.body_timeout)
        self._finish(answer(408, "request_timeout", f"the body did not arrive within {timeout}"))

    def _finish(self, response: bytes) -> None:
        """Send ``response`` instead of the request's own answer, read no more, and close
        once the client has read it."""
        self._finished = True
        self._cancel_head()
        self._cancel_body()
        running = self._running
        if running is not None and running.response_started and not running.response_complete:
            self.transport.abort()  # part of an answer is out: nothing may follow it
            return
        # Every request not yet answered (running, or pipelined behind it): its task reads
        # a disconnect, writes no "100 Continue", and what it answers goes nowhere.
        for cycle in (running, self.cycle, *(queued for queued, _ in self.pipeline)):
            if cycle is not None and not cycle.response_complete:
                cycle.disconnected = True
                cycle.waiting_for_100_continue = False
                cycle.message_event.set()
        self.transport.write(response)
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the client reads the answer, then closes its end
            self.flow.resume_reading()  # to see that end close
            # Dropped then, even with the answer unread (close would wait for that).
            self._linger_timer = self.loop.call_later(LINGER_SECONDS, self.transport.abort)
        else:
            self.transport.close()

    def _cancel_head(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _cancel_body(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None


def _seconds(value: float) -> str:
    return f"{value:g} s"
