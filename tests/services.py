"""Real servers for the distributed tests: a NATS JetStream server and a PostgreSQL
cluster, each on a free loopback port in a temporary folder, stopped afterwards.

No mocks: the tests that use these talk to the same programs an operator runs. PostgreSQL
refuses to run as root, so as root the cluster belongs to the ``postgres`` user (which
the Debian package creates), in a folder that user may enter.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine on a loop of its own, in a thread of its own: the browser tests'
    Playwright keeps an event loop running in the main thread for the whole session."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coroutine).result()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, what: str) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}: {log.read_text()[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on port {port} within 20 s")


NATS_MAX_PAYLOAD = 8 * 1024 * 1024  # deploy.md and compose.yaml say the same


class NatsServer:
    """A ``nats-server -js`` of our own on a fixed port and store folder, so a test can
    stop it and start it again (the jobs in its file store survive, as in production)."""

    def __init__(self) -> None:
        self.binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
        self.folder = Path(tempfile.mkdtemp(prefix="drill-nats-"))
        self.port = free_port()
        self.url = f"nats://127.0.0.1:{self.port}"
        self.config = self.folder / "nats.conf"
        self.config.write_text(
            f"listen: 127.0.0.1:{self.port}\n"
            f"max_payload: {NATS_MAX_PAYLOAD}\n"
            f'jetstream {{ store_dir: "{self.folder / "js"}" }}\n'
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = self.folder / "nats.log"
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [self.binary, "-c", str(self.config)], stdout=out, stderr=subprocess.STDOUT
            )
        _wait_for_port(self.port, self.proc, log, "nats-server")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def nats_server() -> Iterator[str]:
    """A ``nats-server -js`` of our own; yields its URL."""
    with running_nats() as server:
        yield server.url


@contextlib.contextmanager
def running_nats() -> Iterator[NatsServer]:
    server = NatsServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """A PostgreSQL 15 cluster of our own (``initdb`` and ``pg_ctl``); yields a
    SQLAlchemy URL for psycopg 3."""
    folder = Path(tempfile.mkdtemp(prefix="drill-pg-"))
    as_root = os.geteuid() == 0
    run_as: list[str] = []
    if as_root:  # PostgreSQL refuses root: the cluster is the postgres user's
        user = pwd.getpwnam("postgres")
        os.chmod(folder, 0o755)
        os.chown(folder, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    log = folder / "postgres.log"
    subprocess.run(
        [*run_as, str(PG_BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg_ctl = [*run_as, str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(log)]
    subprocess.run([*pg_ctl, "-o", options, "-w", "start"], check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "-w", "stop"], check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
