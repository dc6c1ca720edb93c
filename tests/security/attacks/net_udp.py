"""Sends UDP datagrams to loopback and to public addresses (a covert way out).

Leak probe: returns the right answer (passes); the check is that nothing was sent.
"""
# expect: status=pass kind=leak min_tried=3 proof=direct
import json
import socket

TARGETS = [("127.0.0.1", 9), ("127.0.0.1", int("@@SERVER_PORT@@")), ("8.8.8.8", 53)]


def probe():
    tried, found = 0, []
    for host, port in TARGETS:
        tried += 1
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.sendto(b"drill-exfiltration", (host, port))
                found.append(f"udp {host}:{port}")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
