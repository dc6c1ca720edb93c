"""Slow and greedy clients against a real ``drill serve`` (app/slow_clients.py): a silent
connection, a trickled head, a trickled body and an idle keep-alive connection are each
closed within their timeout (1 s here), while another client is served at once; beyond
the connection caps new connections get 503 (all) or 429 (one address), and are served
again once the held ones close. A client that is slow but within the deadlines is served.
A head over 64 KiB is refused as it arrives, and what the parser refuses is one clean 400.
The last test, with no server, checks that ``drill serve`` hands uvicorn these settings.

Every deadline below is the timeout plus GRACE: a bound on when the server must have
closed, never a measure of how fast it is.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import json
import logging
import secrets
import select
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn

from app.slow_clients import GuardedProtocol, Guards
from drill import cli
from drill.commands import serve
from tests.conftest import TEST_EXERCISES
from tests.serving import Bystander, Server, running_server

TIMEOUT = 1.0  # DRILL_HEADER_TIMEOUT, DRILL_BODY_TIMEOUT and DRILL_KEEP_ALIVE_TIMEOUT here
GRACE = 2.0
TRICKLE = 0.3  # seconds between two bytes of a trickling client
CAP, PER_CLIENT = 6, 3  # the capped server's DRILL_MAX_CONNECTIONS and ..._PER_CLIENT


def _env(**extra: str) -> dict[str, str]:
    return {"DRILL_EXERCISES_DIR": str(TEST_EXERCISES), "DRILL_WORKERS": "1", **extra}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    seconds = f"{TIMEOUT:g}"
    env = _env(
        DRILL_HEADER_TIMEOUT=seconds, DRILL_BODY_TIMEOUT=seconds, DRILL_KEEP_ALIVE_TIMEOUT=seconds
    )
    with running_server(tmp_path_factory.mktemp("slow-clients"), **env) as running:
        yield running
    assert "Traceback" not in running.log.read_text(), running.log.read_text()[-3000:]


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # A long head timeout: the silent connections held to fill the caps outlast the test.
    # The keep-alive timeout alone closes an idle connection here, as with the defaults.
    env = _env(
        DRILL_MAX_CONNECTIONS=str(CAP),
        DRILL_MAX_CONNECTIONS_PER_CLIENT=str(PER_CLIENT),
        DRILL_HEADER_TIMEOUT="60",
        DRILL_KEEP_ALIVE_TIMEOUT=f"{TIMEOUT:g}",
    )
    with running_server(tmp_path_factory.mktemp("capped"), **env) as running:
        yield running


def address(server: Server) -> tuple[str, int]:
    host, port = server.base.removeprefix("http://").split(":")
    return host, int(port)


def connect(server: Server, source: str = "127.0.0.1") -> socket.socket:
    """A connection from ``source`` (any 127.x.y.z: loopback, another client address)."""
    return socket.create_connection(address(server), timeout=10, source_address=(source, 0))


def until_closed(sock: socket.socket, within: float) -> bytes:
    """What the server sends until it closes the connection, which it must within
    ``within`` seconds."""
    deadline = time.monotonic() + within
    received = b""
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"still open after {within} s; received {received[:200]!r}"
        readable, _, _ = select.select([sock], [], [], left)
        if not readable:
            continue
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def trickle(sock: socket.socket, data: bytes, within: float) -> bytes:
    """Send ``data`` a byte every TRICKLE seconds until the server answers or closes, which
    it must within ``within`` seconds; what it sent."""
    deadline = time.monotonic() + within
    for byte in data:
        left = deadline - time.monotonic()
        assert left > 0, f"still open after {within} s"
        readable, _, _ = select.select([sock], [], [], min(TRICKLE, left))
        if readable:
            break
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            break
    return until_closed(sock, max(0.0, deadline - time.monotonic()))


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def error_of(answer: bytes) -> str:
    body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert body["message"], body
    return str(body["error"])


@pytest.mark.sandbox
def test_a_silent_connection_is_closed(server: Server) -> None:
    with Bystander(server, within=GRACE), connect(server) as silent:
        assert until_closed(silent, TIMEOUT + GRACE) == b""  # nothing to answer


@pytest.mark.sandbox
def test_a_trickled_head_gets_408_and_is_closed(server: Server) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200
    with Bystander(server, within=GRACE), connect(server) as slow:
        answer = trickle(slow, head, TIMEOUT + GRACE)
    assert status_of(answer) == 408, answer
    assert error_of(answer) == "request_timeout"


@pytest.mark.sandbox
def test_a_trickled_body_gets_408_and_is_not_acted_upon(server: Server) -> None:
    learner = secrets.token_urlsafe(24)
    draft = json.dumps({"code": "x = 1\n"}).encode()
    padding = b" " * 200  # the JSON is complete; what follows it never comes in time
    head = (
        b"PUT /api/drafts/double/numpy HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n"
        b"Cookie: drill_learner=" + learner.encode() + b"\r\n"
        b"Content-Length: " + str(len(draft) + len(padding)).encode() + b"\r\n\r\n"
    )
    with Bystander(server, within=GRACE), connect(server) as slow:
        slow.sendall(head + draft)
        answer = trickle(slow, padding, TIMEOUT + GRACE)
    assert status_of(answer) == 408, answer
    assert error_of(answer) == "request_timeout"
    # The body was cut short: the draft its first bytes spell was not saved.
    cookies = {"drill_learner": learner}
    saved = httpx.get(f"{server.base}/api/drafts/double/numpy", cookies=cookies, timeout=10)
    assert saved.status_code == 404, saved.text


@pytest.mark.sandbox
def test_an_idle_keep_alive_connection_is_closed(capped: Server) -> None:
    host, port = address(capped)
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.request("GET", "/healthz")
    response = connection.getresponse()
    assert response.status == 200 and not response.will_close
    response.read()
    assert connection.sock is not None
    assert until_closed(connection.sock, TIMEOUT + GRACE) == b""
    connection.close()


@pytest.mark.sandbox
def test_the_next_head_on_a_keep_alive_connection_has_the_same_deadline(server: Server) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        response = http.client.HTTPResponse(sock)
        response.begin()
        assert response.status == 200 and not response.will_close
        response.read()
        answer = trickle(sock, b"GET /healthz HTTP/1.1\r\nX-Slow: " + b"a" * 200, TIMEOUT + GRACE)
    assert status_of(answer) == 408, answer


@pytest.mark.sandbox
def test_a_slow_client_within_the_deadlines_is_served(server: Server) -> None:
    # Three requests on one connection, each sent in pieces over most of the timeout,
    # with a pause between them shorter than the keep-alive timeout.
    body = json.dumps({"code": "y = 2\n"}).encode()
    request = (
        b"PUT /api/drafts/double/numpy HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    pieces = [request[:20], request[20:60], request[60:-5], request[-5:]]
    pause = TIMEOUT * 0.4 / len(pieces)
    with connect(server) as sock:
        for _ in range(3):
            for piece in pieces:
                sock.sendall(piece)
                time.sleep(pause)
            response = http.client.HTTPResponse(sock)
            response.begin()
            assert response.status == 200, response.read()
            response.read()
            time.sleep(TIMEOUT * 0.3)


@pytest.mark.sandbox
def test_an_oversized_head_gets_431_before_its_end(server: Server) -> None:
    # 256 KiB of one header, and no end of the head: refused as it arrives (without the
    # guard, httptools would buffer it all, and the head timeout would answer 408).
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * 2**18)
        answer = until_closed(sock, GRACE)
    assert status_of(answer) == 431, answer[:200]
    assert error_of(answer) == "headers_too_large"


@pytest.mark.sandbox
def test_a_request_the_parser_refuses_midway_gets_one_clean_400(server: Server) -> None:
    # The head is fine, so the request's task starts; then its chunked body is not. The
    # task must not write its "100 Continue" (or anything) after the refusal.
    request = (
        b"PUT /api/drafts/double/numpy HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nExpect: 100-continue\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"
    )
    with connect(server) as sock:
        sock.sendall(request)
        answer = until_closed(sock, GRACE)
    assert answer.count(b"HTTP/1.1 ") == 1, answer
    assert status_of(answer) == 400 and error_of(answer) == "bad_request", answer
    time.sleep(0.5)  # the request's task has run
    log = server.log.read_text()
    assert "Traceback" not in log, log[-3000:]


def _request(server: Server, source: str) -> bytes:
    with connect(server, source) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return until_closed(sock, GRACE)


def _held(server: Server, source: str, count: int) -> list[socket.socket]:
    held = [connect(server, source) for _ in range(count)]
    time.sleep(0.2)  # accepted (the answers below check it: the caps hold)
    return held


@pytest.mark.sandbox
def test_the_connection_caps_refuse_then_serve_again(capped: Server) -> None:
    held = _held(capped, "127.0.0.2", PER_CLIENT)
    try:
        # One address at its cap: its next connection is refused, another address's is not.
        over = _request(capped, "127.0.0.2")
        assert status_of(over) == 429, over
        assert error_of(over) == "rate_limited" and b"retry-after:" in over.lower()
        assert status_of(_request(capped, "127.0.0.5")) == 200  # closed by the server after
        # Every connection the server takes: the next one is refused, whoever it is from.
        held += _held(capped, "127.0.0.3", CAP - PER_CLIENT)
        full = _request(capped, "127.0.0.4")
        assert status_of(full) == 503, full
        assert error_of(full) == "unavailable" and b"retry-after:" in full.lower()
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + GRACE
    while True:  # served again once the held connections are gone
        answer = _request(capped, "127.0.0.2")
        if status_of(answer) == 200:
            break
        assert time.monotonic() < deadline, answer
        time.sleep(0.1)


def test_drill_serve_gives_uvicorn_the_settings(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The one place uvicorn is started takes the guards and the keep-alive timeout from
    the environment (no server here: uvicorn.run is replaced)."""
    given: dict[str, object] = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: given.update(options))
    monkeypatch.setattr("app.main.create_app", lambda settings: object())
    monkeypatch.setattr(serve, "pin_mmap_threshold", lambda: None)
    drill_log = logging.getLogger("drill")
    request.addfinalizer(functools.partial(drill_log.setLevel, drill_log.level))  # serve sets it
    environment = {
        "DRILL_HEADER_TIMEOUT": "3",
        "DRILL_BODY_TIMEOUT": "4.5",
        "DRILL_KEEP_ALIVE_TIMEOUT": "6",
        "DRILL_MAX_CONNECTIONS": "7",
        "DRILL_MAX_CONNECTIONS_PER_CLIENT": "2",
        "DRILL_TRUSTED_PROXIES": "10.0.0.0/8",
    }
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert cli.main(["serve", "--port", "8123"]) == 0
    protocol = given["http"]
    assert isinstance(protocol, type) and issubclass(protocol, GuardedProtocol)
    guards = protocol.guards
    assert guards == Guards(3.0, 4.5, 7, 2, (ipaddress.ip_network("10.0.0.0/8"),))
    assert not guards.counted("10.1.2.3") and guards.counted("192.0.2.1")
    assert given["timeout_keep_alive"] == 6
