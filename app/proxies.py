"""Which peers are the operator's own proxies (``DRILL_TRUSTED_PROXIES``), and what their
forwarded headers may tell: the client's address (``app.deps.get_client``) and whether
the client spoke HTTPS to them (so the learner cookie is marked ``Secure``)."""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from functools import lru_cache

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=8)
def _networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    # A dual-stack socket shows IPv4 peers as ::ffff:a.b.c.d; compare them as IPv4.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address: Address | None, networks: Sequence[Network]) -> bool:
    return address is not None and any(address in network for network in networks)


def forwarded_https(peer: str | None, proto_headers: list[str], trusted: Sequence[str]) -> bool:
    """Whether a trusted proxy says the client reached it over HTTPS: the value the
    nearest proxy appended to ``X-Forwarded-Proto`` (an untrusted peer is not heard)."""
    networks = _networks(tuple(trusted))
    if not networks or peer is None or not _trusted(_address(peer), networks):
        return False
    values = ",".join(proto_headers).split(",")
    return values[-1].strip().lower() == "https"
