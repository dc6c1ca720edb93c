"""Hostile HTTP, below and above the OpenAPI document: whatever a client sends, the answer
is a verdict or a clean 4xx (503 or 429 where the service means them), never a 500, and
it comes within a second, while another client's requests are not held up.

- **Requests on the wire** (a real ``drill serve``, raw sockets): request lines, header
  sections and bodies built to break parsers: huge, many, binary and duplicate headers,
  bad encodings, contradictory or absurd Content-Length, chunked framing gone wrong,
  heads and bodies that never end (the server's deadlines are 0.5 s here).
- **Bodies** (the app in-process over the fake grading backend): JSON nested deep, of the
  wrong types, with huge numbers, invalid UTF-8, lone surrogates; forms; other types.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.app.conftest import client_for
from tests.conftest import TEST_EXERCISES
from tests.fakes import ReferenceOnlyBackend
from tests.serving import Bystander, Server, running_server

WITHIN = 1.0  # seconds for any answer (the deadlines below are 0.5 s)
DEADLINE = "0.5"
STATUS_LINE = re.compile(rb"^HTTP/1\.[01] (\d{3}) ", re.MULTILINE)
UNLIMITED = {
    "DRILL_RATE_BURST": "100000",
    "DRILL_RATE_PER_MINUTE": "100000",
    "DRILL_DRAFT_BURST": "100000",
    "DRILL_DRAFT_RATE_PER_MINUTE": "100000",
}
VALID_SUBMIT = {"track": "numpy", "code": "def double(x):\n    return 2 * x\n", "mode": "run"}


def allowed(status: int, retry_after: bool) -> bool:
    """A verdict or a page (2xx, 3xx), a client error, or a 503 that says when to retry."""
    return 200 <= status < 500 or (status == 503 and retry_after)


# --- requests on the wire ----------------------------------------------------------

PATHS = [
    b"/healthz",
    b"/",
    b"/exercises/double",
    b"/exercises/double?track=numpy",
    b"/api/exercises",
    b"/api/exercises/double",
    b"/api/exercises/double/hints/1",
    b"/api/exercises/double/submissions",
    b"/api/drafts/double/numpy",
    b"/api/progress",
    b"/api/submissions/1",
    b"/instructor/login",
    b"/static/app.css",
    b"/openapi.json",
]
HEADER_VALUES: dict[bytes, list[bytes]] = {
    b"host": [b"127.0.0.1", b"", b"[::1", b"a" * 300, b"\xff\xfe"],
    b"content-length": [
        b"0",
        b"5",
        b"-1",
        b"abc",
        b"1e3",
        b"0x10",
        b"5, 6",
        b" 7 ",
        b"99999999999999999999999999",
        b"18446744073709551616",
    ],
    b"transfer-encoding": [
        b"chunked",
        b"Chunked",
        b"gzip, chunked",
        b"chunked, gzip",
        b"identity",
        b"chunked\x00",
        b"xchunked",
    ],
    b"content-type": [
        b"application/json",
        b"application/json; charset=latin-1",
        b"text/plain",
        b"application/x-www-form-urlencoded",
        b"multipart/form-data; boundary=x",
        b"",
        b"\xff",
    ],
    b"cookie": [
        b"drill_learner=" + b"a" * 32,
        b'drill_learner="' + b"\\\\" * 500 + b'"',
        b"drill_instructor=1.2",
        b";;;;=;=",
        b"x=" + b"y" * 9000,
    ],
    b"connection": [b"close", b"keep-alive", b"upgrade", b"Upgrade, HTTP2-Settings", b"\x00"],
    b"upgrade": [b"websocket", b"h2c", b"foo/1"],
    b"expect": [b"100-continue", b"200-ok"],
    b"origin": [b"null", b"http://127.0.0.1", b"http://[", b"http://[::1", b"://", b"\xff"],
    b"sec-fetch-site": [b"same-origin", b"cross-site", b"none", b""],
    b"x-forwarded-for": [b"1.2.3.4", b"a, b, c", b"[::1]:80", b"\xff"],
    b"x-forwarded-proto": [b"https", b"http, https", b"\xff"],
    b"authorization": [b"Bearer x", b"Bearer " + b"t" * 40, b"Basic \xff"],
    b"accept": [b"text/html", b"*/*", b"\xff" * 10],
    b"range": [b"bytes=0-1", b"bytes=-1,-2,-3", b"bytes=9999999999-"],
}
CHUNKED_BODIES = [
    b"0\r\n\r\n",
    b"5\r\nhello\r\n0\r\n\r\n",
    b"ffffffffffffffffffff\r\nx\r\n",
    b"-1\r\n\r\n",
    b"5;ext=" + b"e" * 1000 + b"\r\nhello\r\n0\r\n\r\n",
    b"5\r\nhelloX0\r\n\r\n",
    b"0x5\r\nhello\r\n0\r\n\r\n",
    b"5\r\nhel",
    b"2\r\n{}\r\n0\r\nTrailer: " + b"t" * 5000 + b"\r\n\r\n",
]

any_bytes = st.binary(max_size=64)
token = st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=20).map(str.encode)


def rarely(draw: st.DrawFn, odds: int = 8) -> bool:
    """True about once in ``odds``: most of a case stays well formed, so that each case
    gets past the parser and has one or two hostile parts."""
    return draw(st.sampled_from([False] * (odds - 1) + [True]))  # shrinks to False


@st.composite
def header(draw: st.DrawFn) -> bytes:
    name = draw(st.sampled_from(list(HEADER_VALUES)))
    if rarely(draw, 10):
        name = draw(token | st.binary(min_size=1, max_size=40))
    value = draw(st.sampled_from(HEADER_VALUES.get(name) or [b"v"]))
    if rarely(draw, 5):
        value = draw(
            any_bytes
            | st.integers(0, 100_000).map(lambda n: b"v" * n)  # up to past every size cap
            | st.binary(max_size=16).map(lambda b: b"a\r\n " + b)  # an obsolete line fold
        )
    separator = b": " if not rarely(draw) else draw(st.sampled_from([b":", b" : ", b"\t:"]))
    return name + separator + value


@st.composite
def raw_request(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """(the method, the bytes of a request)."""
    method = draw(st.sampled_from([b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS"]))
    if rarely(draw, 12):
        method = draw(st.binary(min_size=1, max_size=12) | st.sampled_from([b"PATCH", b"PRI"]))
    path = draw(st.sampled_from(PATHS))
    if rarely(draw, 4):
        path += draw(
            st.sampled_from([b"%ff%fe", b"%", b"%00", b"/..%2f..%2f", b"?q=%ff&&==", b"#x"])
            | st.binary(max_size=12)
            | st.integers(0, 70_000).map(lambda n: b"/" + b"p" * n)
        )
    version = b"HTTP/1.1"
    if rarely(draw):
        version = draw(st.sampled_from([b"HTTP/1.0", b"HTTP/2.0", b"HTTP/1.2", b"http/1.1", b""]))
    headers = [] if rarely(draw, 12) else [b"Host: 127.0.0.1"]
    headers += draw(st.lists(header(), max_size=4))
    if rarely(draw, 10):  # many
        headers += [b"x-many-%d: %d" % (i, i) for i in range(draw(st.integers(100, 3000)))]
    body = b""
    if method in (b"POST", b"PUT") or rarely(draw):
        body = draw(
            st.sampled_from([json.dumps(VALID_SUBMIT).encode(), b'{"code": "x"}', b"[" * 5000])
            | st.sampled_from(CHUNKED_BODIES)
            | any_bytes
        )
        framed = any(
            h.lower().startswith((b"content-length", b"transfer-encoding")) for h in headers
        )
        if not framed and not rarely(draw, 4):
            headers.append(b"Content-Length: %d" % len(body))
            if method in (b"POST", b"PUT") and not rarely(draw, 4):
                headers.append(b"Content-Type: application/json")
    line_end = b"\r\n" if not rarely(draw, 12) else draw(st.sampled_from([b"\n", b"\r", b"\n\r"]))
    head = method + b" " + path + b" " + version + line_end
    head += b"".join(h + line_end for h in headers)
    end_of_head = line_end if not rarely(draw, 10) else b""  # a head that never ends
    return method, head + end_of_head + body


def _status_codes(received: bytes) -> list[int]:
    return [int(code) for code in STATUS_LINE.findall(received)]


def exchange(server: Server, method: bytes, request: bytes) -> tuple[int, bytes, float]:
    """Send ``request``; the first answer's status, what came, and how long it took."""
    host, port = server.base.removeprefix("http://").split(":")
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=WITHIN * 3) as sock:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(request)  # refused part-way (a head too large): an answer came
        response = http.client.HTTPResponse(sock, method=method.decode("latin-1"))
        try:
            response.begin()
            body = response.read()
        except (http.client.HTTPException, ConnectionResetError, TimeoutError) as exc:
            raise AssertionError(f"no answer: {exc!r}") from None
        seconds = time.monotonic() - start
        retry = response.getheader("retry-after") is not None
        assert allowed(response.status, retry), (response.status, body[:300])
        is_json = response.getheader("content-type") == "application/json"
        if response.status >= 400 and is_json and method != b"HEAD":
            error = json.loads(body)
            assert error["error"] and error["message"], error
        return response.status, body, seconds


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    var: Path = tmp_path_factory.mktemp("http-fuzz")
    env = {
        "DRILL_EXERCISES_DIR": str(TEST_EXERCISES),
        "DRILL_WORKERS": "1",
        "DRILL_HEADER_TIMEOUT": DEADLINE,
        "DRILL_BODY_TIMEOUT": DEADLINE,
        "DRILL_KEEP_ALIVE_TIMEOUT": "1",
        **UNLIMITED,
    }
    with running_server(var, **env) as server:
        # One Submit first: the reference's expected values are computed once, not in a case.
        url = f"{server.base}/api/exercises/double/submissions"
        assert httpx.post(url, json=VALID_SUBMIT, timeout=120).status_code == 200
        yield server


@pytest.mark.sandbox
def test_requests_on_the_wire_get_a_clean_answer_within_a_second(fuzz_server: Server) -> None:
    seen: dict[int, int] = {}

    @given(case=raw_request())
    @settings(
        max_examples=600,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: tuple[bytes, bytes]) -> None:
        method, request = case
        status, _, seconds = exchange(fuzz_server, method, request)
        seen[status] = seen.get(status, 0) + 1
        assert seconds < WITHIN, (seconds, status, request[:300])

    with Bystander(fuzz_server, within=WITHIN, interval=0.05) as bystander:
        check()
    assert not bystander.failures, bystander.failures[:5]
    assert bystander.waits and max(bystander.waits) < WITHIN, max(bystander.waits)
    log = fuzz_server.log.read_text()
    errors = [line for line in log.splitlines() if "Traceback" in line or '" 500 ' in line]
    assert not errors, errors[:5]
    # The cases reached the app's answers, the parser's refusals and the deadlines.
    assert {200, 400, 408} <= set(seen), seen


# --- bodies --------------------------------------------------------------------------

json_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(["numpy", "torch", "run", "submit", "\ud800", "\x00", "x" * 70_000])
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["track", "code", "mode", "x"]) | st.text(), inner)
    ),
    max_leaves=12,
)
shaped = st.fixed_dictionaries(
    {},
    optional={"track": json_value, "code": json_value, "mode": json_value, "extra": json_value},
)


def _json_bytes(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode()  # lone surrogates as \ud800


body_bytes = (
    shaped.map(_json_bytes)
    | json_value.map(_json_bytes)
    | st.integers(1, 200_000).map(lambda n: b"[" * n + b"]" * (n % 3))  # nested deep
    | st.integers(4000, 100_000).map(lambda n: b'{"code": 1' + b"0" * n + b"}")
    | st.binary(max_size=200)  # invalid UTF-8, anything
    | st.binary(max_size=20).map(lambda b: b'{"track": "numpy", "code": "' + b + b'"}')
    | st.sampled_from([b"token=" + b"%ff" * 50, b"token=a&token=b&" * 30, b"\xff\xfe"])
)
content_types = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/x-www-form-urlencoded",
        "text/plain",
        "multipart/form-data; boundary=x",
        "",
    ]
)
targets = st.sampled_from(
    [
        ("PUT", "/api/drafts/double/numpy"),
        ("POST", "/api/exercises/double/submissions"),
        ("POST", "/instructor/login"),
        ("POST", "/instructor/logout"),
        ("PUT", "/api/drafts/double/torch"),
        ("POST", "/api/exercises/nope/submissions"),
    ]
)


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("body-fuzz")
    overrides = {key.removeprefix("DRILL_").lower(): value for key, value in UNLIMITED.items()}
    with client_for(
        tmp,
        TEST_EXERCISES,
        backend=ReferenceOnlyBackend(),
        instructor_token="t" * 32,
        **overrides,
    ) as started:
        yield TestClient(started.app, raise_server_exceptions=False)  # a 500 is an answer


def test_bodies_get_a_verdict_or_a_clean_4xx_within_a_second(app_client: TestClient) -> None:
    seen: set[int] = set()

    @given(target=targets, body=body_bytes, content_type=content_types)
    @settings(max_examples=300, deadline=None, database=None)
    def check(target: tuple[str, str], body: bytes, content_type: str) -> None:
        method, path = target
        headers = {"content-type": content_type} if content_type else {}
        start = time.monotonic()
        answer = app_client.request(method, path, content=body, headers=headers)
        seconds = time.monotonic() - start
        seen.add(answer.status_code)
        retry = "retry-after" in answer.headers
        assert allowed(answer.status_code, retry), (answer.status_code, answer.text[:300])
        if path.startswith("/api/") and answer.status_code >= 400:
            error = answer.json()
            assert error["error"] and error["message"], error
        assert seconds < WITHIN, (seconds, path, body[:200])

    check()
    assert {200, 422} <= seen, seen  # verdicts and saved drafts, and the refusals
