"""The start-up canary: what can a job see and do? Runs as a job, under the job's limits."""

from __future__ import annotations

import os
import socket
from typing import Any

WRITABLE_PROBES = ("/", "/tmp", "/dev", "/dev/shm", "/drill", "/proc/self/cwd")
# Opened for writing, never written: a global kernel knob, and the per-process knobs of the
# worker (pid 1) and its session that every later job would inherit (/proc is read-only).
KERNEL_KNOBS = ("/proc/sys/kernel/core_pattern", "/proc/1/oom_score_adj", "/proc/self/autogroup")


def run_selfcheck(header: dict[str, Any]) -> dict[str, Any]:
    visible = [p for p in header.get("secret_paths", []) if os.path.exists(p)]
    writable = []
    for folder in WRITABLE_PROBES:
        path = os.path.join(folder, f".drill-canary-{os.getpid()}")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            continue
        os.close(fd)
        os.unlink(path)
        writable.append(folder)
    for knob in KERNEL_KNOBS:
        try:
            os.close(os.open(knob, os.O_WRONLY))
            writable.append(knob)
        except OSError:
            pass
    network = []
    port = header.get("probe_port")
    if port:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                network.append(f"127.0.0.1:{port}")
        except OSError:
            pass
    try:
        with open("/proc/net/dev") as dev:
            interfaces = [line.split(":")[0].strip() for line in dev.readlines()[2:]]
    except OSError:
        interfaces = []
    network += [name for name in interfaces if name != "lo"]
    try:
        with open("/proc/self/cgroup") as own:
            cgroup = own.read(4096)
    except OSError:
        cgroup = ""
    return {
        "cgroup": cgroup,
        "visible_paths": visible,
        "writable": writable,
        "network": network,
        "environment": sorted(os.environ),
        "uid": os.getuid(),
    }
