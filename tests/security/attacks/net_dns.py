"""Resolves names (DNS exfiltration): getaddrinfo of a public name, and a hand-made DNS query
sent by UDP to the configured name server, 127.0.0.53 and 8.8.8.8.

Leak probe: returns the right answer (passes); the check is that no query left.
"""
# expect: status=pass kind=leak min_tried=4 proof=direct
import json
import socket

QUERY = (b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
         b"\x05drill\x07example\x03com\x00\x00\x01\x00\x01")


def probe():
    tried, found = 0, []
    servers = ["127.0.0.53", "8.8.8.8"]
    try:
        with open("/etc/resolv.conf") as f:
            servers += [line.split()[1] for line in f if line.startswith("nameserver")]
    except OSError:
        pass
    for server in dict.fromkeys(servers):
        tried += 1
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.sendto(QUERY, (server, 53))
                found.append(f"dns query to {server}")
        except OSError:
            pass
    for name in ("example.com", "drill-exfiltration.example.com"):
        tried += 1
        try:
            socket.getaddrinfo(name, 80)
            found.append(f"resolved {name}")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
