"""Finder for proc_threads_outlive_entry.py: looks for the lingering threads (by name, in
every process it can see) and for their socket."""
import json
import os
import socket

NAME = b"\0drill-linger-@@TOKEN@@"


def probe():
    tried, found = 0, []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            tried += 1
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as comm:
                    if comm.read().strip() == "drill-linger":
                        found.append(f"thread {tid} of process {pid}")
            except OSError:
                pass
    tried += 1
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe_socket:
        probe_socket.settimeout(1)
        try:
            probe_socket.connect(NAME)
            found.append("the socket answers: " + probe_socket.recv(16).decode())
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded({**probe(), "ns": os.readlink("/proc/self/ns/pid")})))
    return x * 2
