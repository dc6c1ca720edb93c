"""Connects to the Drill service itself on 127.0.0.1 (its port substituted) and asks for
/healthz, e.g. to submit on someone's behalf or to read stored results.

Leak probe: returns the right answer (passes); the check is that nothing was reached.
Seccomp refuses AF_INET sockets even without bubblewrap, so the proof runs the probe
unconfined in a plain subprocess.
"""
# expect: status=pass kind=leak min_tried=2 proof=direct
import json
import socket

PORT = int("@@SERVER_PORT@@")


def probe():
    tried, found = 0, []
    for host in ("127.0.0.1", "localhost"):
        tried += 1
        try:
            with socket.create_connection((host, PORT), timeout=1) as s:
                s.sendall(b"GET /healthz HTTP/1.0\r\n\r\n")
                found.append(f"{host}:{PORT} -> {s.recv(64)!r}")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
