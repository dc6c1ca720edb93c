"""Drill in distributed mode on one machine: API nodes and grading workers as real
processes (``drill serve`` with ``DRILL_QUEUE``, ``drill worker``), over a real
nats-server and PostgreSQL (``tests/services.py``).

Every process runs in a process group of its own, so a test can SIGKILL a whole grading
machine (the worker and its sandbox children) or a whole API node. The environment each
role gets is spelled here once: ``compose.yaml`` and ``docs/deploy.md`` are checked
against it (``tests/distributed/test_deploy.py``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.services import free_port

ROOT = Path(__file__).resolve().parent.parent

# The commands of the two roles (after ``python -m``), as compose.yaml runs them.
API_COMMAND = ["drill", "serve", "--host", "127.0.0.1"]
WORKER_COMMAND = ["drill", "worker", "--role"]
# What each role needs in its environment. A worker gets no database URL: a grading
# machine holds no credentials (the test of the cluster checks its environment).
API_ENV = ("DRILL_QUEUE", "DRILL_DB", "DRILL_TRUSTED_PROXIES", "DRILL_INSTRUCTOR_TOKEN")
WORKER_ENV = ("DRILL_QUEUE", "DRILL_WORKERS", "DRILL_SANDBOX")
# Settings both sides must agree on (the API computes deadlines from them, the workers
# and the stream apply them).
SHARED_ENV = ("DRILL_QUEUE_ACK_WAIT", "DRILL_QUEUE_WAIT_SECONDS", "DRILL_QUEUE_MAX_JOBS")
READY_LINE = "drill worker ready"


@dataclass
class Node:
    """One process of the cluster and its log."""

    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    base: str = ""  # an API node's URL

    def text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group: the node and every child it started."""
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            return
        if sig == signal.SIGKILL:
            self.proc.wait(30)

    def stop(self) -> int | None:
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.kill_group()
        # Whatever the node started (sandbox workers) goes with it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        return self.proc.returncode


@dataclass
class Cluster:
    """Starts API nodes and workers against one broker and one database."""

    queue: str
    db: str
    env: dict[str, str] = field(default_factory=dict)  # settings for every node
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="drill-cluster-")))
    nodes: list[Node] = field(default_factory=list)

    def _spawn(self, name: str, args: list[str], env: dict[str, str]) -> Node:
        log = self.folder / f"{name}.log"
        base_env = {
            k: v for k, v in os.environ.items() if not k.startswith("DRILL_") or k == "DRILL_BWRAP"
        }
        with log.open("ab") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", *args],
                cwd=ROOT,
                env={**base_env, **env},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: killable as a machine
            )
        node = Node(name, proc, log)
        self.nodes.append(node)
        return node

    def worker_env(self, **extra: str) -> dict[str, str]:
        return {
            "DRILL_QUEUE": self.queue,
            "DRILL_WORKERS": "1",
            "DRILL_SANDBOX": "bwrap",
            "DRILL_VAR_DIR": str(self.folder / "worker-var"),
            **self.env,
            **extra,
        }

    def api_env(self, name: str, **extra: str) -> dict[str, str]:
        return {
            "DRILL_QUEUE": self.queue,
            "DRILL_DB": self.db,
            "DRILL_VAR_DIR": str(self.folder / f"{name}-var"),
            "DRILL_RATE_PER_MINUTE": "6000",
            "DRILL_RATE_BURST": "1000",
            **self.env,
            **extra,
        }

    def start_worker(self, name: str, role: str = "learner", **extra: str) -> Node:
        node = self._spawn(name, ["drill", "worker", "--role", role], self.worker_env(**extra))
        deadline = time.monotonic() + 120
        while READY_LINE not in node.text():
            if not node.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"worker {name} did not start:\n{node.text()[-3000:]}")
            time.sleep(0.1)
        return node

    def start_api(self, name: str, **extra: str) -> Node:
        port = free_port()
        node = self._spawn(
            name,
            [*API_COMMAND, "--port", str(port)],
            self.api_env(name, **extra),
        )
        node.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:  # ready once it is connected to the broker too ("ok", not "degraded")
            try:
                health = httpx.get(f"{node.base}/healthz", timeout=2)
                if health.status_code == 200 and health.json().get("status") == "ok":
                    return node
            except (httpx.HTTPError, ValueError):
                pass
            if not node.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"API node {name} did not start:\n{node.text()[-3000:]}")
            time.sleep(0.2)

    def start_apis(self, names: list[str], **extra: str) -> dict[str, Node]:
        """API nodes started at the same moment (as behind a load balancer they may be)."""
        with ThreadPoolExecutor(len(names)) as starting:
            started = [starting.submit(self.start_api, name, **extra) for name in names]
            return {name: future.result() for name, future in zip(names, started, strict=True)}

    def close(self) -> None:
        """Stop every node, then remove the folder (logs and the nodes' var folders)."""
        for node in reversed(self.nodes):
            node.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def logs(self) -> str:
        return "\n".join(f"===== {n.name}\n{n.text()[-4000:]}" for n in self.nodes)
