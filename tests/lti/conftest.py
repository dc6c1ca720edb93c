"""A platform and a tool, each a real HTTP server on loopback, linked as if registered:
the tool knows the platform's registration, the platform the tool's URLs. RSA keys are
made once per session (2048-bit keys take a moment), and the two servers started once;
the platform and the tool behind them are fresh for every test.

No marker: these tests need no sandbox, browser or server process (the servers are
threads of the test process, up in milliseconds; Drill's own app grades with the
reference-only backend), so ``make test-fast`` runs them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from joserfc.jwk import RSAKey

from app.lti.keys import ToolKey
from app.lti.registration import Registration
from app.lti.services import PlatformServices
from tests.app import postgres as pg
from tests.lti.platform import Mount, Platform, serve
from tests.lti.tool import Tool


@dataclass(frozen=True)
class Keys:
    platform: RSAKey
    forger: RSAKey  # another key, same kid as the platform's
    rotated: RSAKey  # the platform's next key
    tool: ToolKey
    stranger: ToolKey  # a tool key no platform knows


@pytest.fixture(scope="session", autouse=True)
def _stop_postgres() -> Iterator[None]:
    """Stops the session's PostgreSQL cluster at the end, if a test started it
    (DRILL_TEST_DB=postgresql: Drill's own tests here run on it, tests/lti/drill.py)."""
    yield
    pg.stop()


@pytest.fixture(scope="session")
def keys() -> Keys:
    return Keys(
        platform=RSAKey.generate_key(2048, parameters={"kid": "platform-1"}),
        forger=RSAKey.generate_key(2048, parameters={"kid": "platform-1"}),
        rotated=RSAKey.generate_key(2048, parameters={"kid": "platform-2"}),
        tool=ToolKey.generate(),
        stranger=ToolKey.generate(),
    )


@pytest.fixture(scope="session")
def platform_server() -> Iterator[tuple[Mount, str]]:
    with serve(mount := Mount()) as base:
        yield mount, base


@pytest.fixture(scope="session")
def tool_server() -> Iterator[tuple[Mount, str]]:
    with serve(mount := Mount()) as base:
        yield mount, base


@pytest.fixture
def platform(keys: Keys, platform_server: tuple[Mount, str]) -> Iterator[Platform]:
    mount, base = platform_server
    fresh = Platform(keys.platform, keys.forger).serving_at(base)
    mount.app = fresh.app()
    yield fresh
    mount.app = None


@pytest.fixture
def tool(keys: Keys, platform: Platform, tool_server: tuple[Mount, str]) -> Iterator[Tool]:
    """The tool, registered with ``platform`` (and the platform with it)."""
    mount, base = tool_server
    fresh = Tool(keys.tool).serving_at(base)
    fresh.registrations.add(platform.registration())
    platform.know_tool(fresh.site)
    mount.app = fresh.app()
    yield fresh
    mount.app = None
    fresh.platform_keys.close()


@pytest.fixture
def registration(platform: Platform, tool: Tool) -> Registration:
    return platform.registration()


@pytest.fixture
def services(keys: Keys, tool: Tool) -> Iterator[PlatformServices]:
    client = PlatformServices(keys.tool)
    yield client
    client.close()
