"""Start ``drill serve`` as a real process for tests that need one (browser, durability)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.catalog import shipped_exercises_dir


@dataclass
class Server:
    base: str
    proc: subprocess.Popen[bytes]
    log: Path

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(var: Path, port: int | None = None, **env: str) -> Iterator[Server]:
    """``drill serve`` on the shipped catalog unless ``env`` names another folder."""
    port = port or free_port()
    environment = {
        **os.environ,
        "DRILL_EXERCISES_DIR": str(shipped_exercises_dir()),
        "DRILL_SANDBOX": "bwrap",
        "DRILL_VAR_DIR": str(var),
        "DRILL_WORKERS": "2",
        **env,
    }
    var.mkdir(parents=True, exist_ok=True)
    log_path = var / f"server-{port}.log"
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "drill", "serve", "--port", str(port)],
            env=environment,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{server.base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"drill serve did not start:\n{log_path.read_text()}")
            time.sleep(0.3)
        yield server
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def children(pid: int) -> list[int]:
    """Direct children of a process (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command may hold spaces and parentheses: the ppid follows the last ')'.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    result, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            result.append(child)
            todo.append(child)
    return result


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def running_jobs(sandboxes: list[int]) -> int:
    """Jobs running under these sandbox processes (bubblewrap, one per worker). A job is a
    fork of its warm worker: a harness process whose parent is a harness process too."""

    def harness(pid: int) -> bool:
        try:
            return b"graders.sandbox.worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False

    count = 0
    for sandbox in sandboxes:
        for parent in [sandbox, *descendants(sandbox)]:
            if harness(parent):
                count += sum(1 for pid in children(parent) if harness(pid) and alive(pid))
    return count


def wait_for_jobs(sandboxes: Callable[[], list[int]], count: int, within: float = 60) -> None:
    """Until ``count`` jobs run at once: a test that acts on a running job waits for it
    rather than for a fixed pause, which a slow start on a loaded machine outlasts."""
    deadline = time.monotonic() + within
    while running_jobs(sandboxes()) < count:
        assert time.monotonic() < deadline, f"{count} job(s) never ran at once"
        time.sleep(0.05)


class Bystander:
    """Another client asking ``/healthz`` every ``interval`` seconds while a hostile one
    does its worst. On leaving the ``with`` block it asserts that every answer was a 200
    that came within ``within`` seconds; ``waits`` and ``failures`` stay for a test's own
    checks."""

    def __init__(self, server: Server, within: float, interval: float = 0.1) -> None:
        self.server = server
        self.within = within
        self.interval = interval
        self.waits: list[float] = []
        self.failures: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=self.server.base, timeout=self.within * 5) as client:
            while not self.stop.is_set():
                start = time.monotonic()
                try:
                    status = client.get("/healthz").status_code
                except httpx.HTTPError as exc:
                    self.failures.append(repr(exc))
                    continue
                self.waits.append(time.monotonic() - start)
                if status != 200:
                    self.failures.append(f"status {status}")
                self.stop.wait(self.interval)

    def __enter__(self) -> Bystander:
        self.thread.start()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=self.within * 6)
        if exc_type is not None:
            return  # the test's own failure says more
        assert self.waits, "the other client got no answer"
        assert not self.failures, self.failures[:5]
        slowest = max(self.waits)
        assert slowest < self.within, f"the other client waited {slowest:.2f} s"
