"""Scans loopback TCP ports of the host (well-known ones plus the service's) over IPv4.

Leak probe: returns the right answer (passes); the check is that nothing was reached.
"""
# expect: status=pass kind=leak min_tried=10 proof=direct
import json
import socket

PORTS = [22, 25, 53, 80, 443, 2375, 3306, 5432, 6379, 8000, 8080, 9000, int("@@SERVER_PORT@@")]


def probe():
    tried, found = 0, []
    for port in PORTS:
        for host in ("127.0.0.1", "127.0.1.1"):
            tried += 1
            try:
                with socket.create_connection((host, port), timeout=0.2):
                    found.append(f"{host}:{port}")
            except OSError:
                pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
