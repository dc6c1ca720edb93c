"""The client's address behind trusted proxies (DRILL_TRUSTED_PROXIES): X-Forwarded-For is
read only from a trusted peer, from the right, and never when it does not parse."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from pydantic import ValidationError
from starlette.requests import Request

from app.deps import get_client
from app.settings import AppSettings

PROXIES = ["10.0.0.0/8", "192.0.2.1", "2001:db8::/32"]


def client_of(peer: str, forwarded: list[str] | None = None, trusted: list[str] = PROXIES) -> str:
    settings = AppSettings(trusted_proxies=trusted)
    scope = {
        "type": "http",
        "client": (peer, 40000),
        "headers": [(b"x-forwarded-for", value.encode()) for value in forwarded or []],
        "app": SimpleNamespace(state=SimpleNamespace(settings=settings)),
    }
    return get_client(Request(scope))


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("198.51.100.9", [], "198.51.100.9"),
        ("10.1.2.3", ["198.51.100.9"], "198.51.100.9"),
        # Two proxies: each appended the address it got the request from.
        ("10.1.2.3", ["198.51.100.9, 192.0.2.1"], "198.51.100.9"),
        ("10.1.2.3", ["198.51.100.9", "10.9.9.9"], "198.51.100.9"),  # two headers: one list
        # The client wrote addresses of its own on the left: only the right end is ours.
        ("10.1.2.3", ["1.1.1.1, 8.8.8.8, 198.51.100.9, 192.0.2.1"], "198.51.100.9"),
        ("10.1.2.3", ["10.5.5.5, 10.6.6.6"], "10.5.5.5"),  # all ours: where it started
        ("2001:db8::1", ["2001:db8::2, 2a00:1450::1"], "2a00:1450::1"),
        ("::ffff:10.1.2.3", ["198.51.100.9"], "198.51.100.9"),  # IPv4 on a dual-stack socket
    ],
    ids=[
        "no header",
        "one proxy",
        "two proxies",
        "two headers",
        "spoofed left part",
        "only proxies",
        "IPv6",
        "IPv4-mapped peer",
    ],
)
def test_a_trusted_peer_forwards_the_client(peer: str, forwarded: list[str], client: str) -> None:
    assert client_of(peer, forwarded) == client


@pytest.mark.parametrize(
    "forwarded",
    [
        "198.51.100.9:4711",
        "[2a00:1450::1]",
        "unknown",
        "198.51.100.9,,10.1.1.1",
        "198.51.100.9, ",
        "",
        "client.example.com",
        "198.51.100.300",
    ],
    ids=["port", "brackets", "unknown", "empty entry", "trailing comma", "empty", "name", "bad"],
)
def test_a_malformed_header_is_ignored_whole(forwarded: str) -> None:
    assert client_of("10.1.2.3", [forwarded]) == "10.1.2.3"


def test_an_untrusted_peer_cannot_choose_its_address() -> None:
    for forwarded in (["203.0.113.5"], ["10.1.2.3"], ["198.51.100.9, 10.1.2.3"]):
        assert client_of("198.51.100.9", forwarded) == "198.51.100.9"
    # Without trusted proxies nobody is trusted, not even loopback.
    assert client_of("127.0.0.1", ["203.0.113.5"], trusted=[]) == "127.0.0.1"
    assert client_of("testclient", ["203.0.113.5"]) == "testclient"


def test_the_setting_reads_comma_separated_or_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DRILL_TRUSTED_PROXIES", " 10.0.0.0/8 ,192.0.2.1,")
    assert AppSettings().trusted_proxies == ["10.0.0.0/8", "192.0.2.1/32"]
    monkeypatch.setenv("DRILL_TRUSTED_PROXIES", '["2001:db8::/32"]')
    assert AppSettings().trusted_proxies == ["2001:db8::/32"]
    monkeypatch.setenv("DRILL_TRUSTED_PROXIES", "")
    assert AppSettings().trusted_proxies == []


@pytest.mark.parametrize("value", ["10.0.0.0/33", "proxy.internal", "10.1.2.3/8", "[1"])
def test_a_bad_proxy_entry_stops_the_start(value: str) -> None:
    with pytest.raises(ValidationError, match="DRILL_TRUSTED_PROXIES"):
        AppSettings(trusted_proxies=value)  # type: ignore[arg-type]


async def _cookie(peer: str, proto: str | None, trusted: list[str]) -> str:
    """The learner cookie a first request gets through the security middleware."""
    from app.middleware import SecurityMiddleware

    async def app(scope: dict, receive: object, send: object) -> None:  # type: ignore[type-arg]
        await send({"type": "http.response.start", "status": 200, "headers": []})  # type: ignore[operator]
        await send({"type": "http.response.body", "body": b""})  # type: ignore[operator]

    sent: list[dict] = []  # type: ignore[type-arg]

    async def send(message: dict) -> None:  # type: ignore[type-arg]
        sent.append(message)

    headers = [(b"x-forwarded-proto", proto.encode())] if proto else []
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/",
        "scheme": "http",
        "client": (peer, 40000),
        "headers": headers,
    }
    await SecurityMiddleware(app, 1024, trusted)(scope, None, send)  # type: ignore[arg-type]
    cookies = [v.decode() for k, v in sent[0]["headers"] if k == b"set-cookie"]
    return cookies[0]


@pytest.mark.parametrize(
    ("peer", "proto", "secure"),
    [
        ("10.1.2.3", "https", True),  # TLS ended at our load balancer
        ("10.1.2.3", "http", False),
        ("10.1.2.3", None, False),
        ("198.51.100.9", "https", False),  # anyone else cannot claim it
    ],
    ids=["trusted https", "trusted http", "no header", "untrusted https"],
)
def test_the_learner_cookie_is_secure_when_a_trusted_proxy_ended_tls(
    peer: str, proto: str | None, secure: bool
) -> None:
    import asyncio

    cookie = asyncio.run(_cookie(peer, proto, PROXIES))
    assert ("; Secure" in cookie) == secure, cookie
