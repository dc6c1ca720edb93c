"""The API node's remote backend against a real broker whose JetStream is slow to answer:
a broker that has just started listening may refuse JetStream requests for a while (for
seconds on a loaded machine), and no later connection change comes to try again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graders.grading.references import DiskCache
from graders.queue import stream
from graders.queue.remote import RemoteBackend
from tests.conftest import TEST_EXERCISES, make_settings
from tests.services import NatsServer, running_nats

pytestmark = pytest.mark.sandbox  # starts a server process: not part of make test-fast


class SlowJetStream:
    """``ensure_stream`` that times out the next ``n`` times it is called, as a JetStream
    still recovering its store does, then does its work."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.failures_left = 0
        self.calls = 0

    async def __call__(self, *args: Any) -> None:
        self.calls += 1
        if self.failures_left > 0:
            self.failures_left -= 1
            raise TimeoutError("JetStream did not answer")
        await self.real(*args)


@pytest.fixture
def slow_jetstream(monkeypatch: pytest.MonkeyPatch) -> SlowJetStream:
    slow = SlowJetStream(stream.ensure_stream)
    monkeypatch.setattr(stream, "ensure_stream", slow)  # remote.py calls it through the module
    return slow


@pytest.fixture
def broker() -> Iterator[NatsServer]:
    with running_nats() as server:
        yield server


def wait_healthy(backend: RemoteBackend, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while not backend.status.healthy and time.monotonic() < deadline:
        time.sleep(0.05)
    return backend.status.healthy


def test_the_stream_is_set_up_once_jetstream_answers_at_start_and_after_a_restart(
    tmp_path: Path, broker: NatsServer, slow_jetstream: SlowJetStream
) -> None:
    settings = make_settings(tmp_path, TEST_EXERCISES, queue=broker.url)
    backend = RemoteBackend(settings, DiskCache(tmp_path / "references"))
    slow_jetstream.failures_left = 2
    backend.start()
    try:
        assert wait_healthy(backend), backend.status
        assert slow_jetstream.calls == 3
        # The broker restarts, and its JetStream is slow to answer again.
        broker.stop()
        deadline = time.monotonic() + 30
        while backend.status.healthy and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not backend.status.healthy, "the node did not notice the broker leave"
        slow_jetstream.failures_left = 2
        broker.start()
        assert wait_healthy(backend, 30), backend.status
        assert slow_jetstream.failures_left == 0
    finally:
        backend.close()
