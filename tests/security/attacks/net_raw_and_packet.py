"""Opens raw IP sockets and AF_PACKET sockets (sniffing, spoofing).

Leak probe: returns the right answer (passes); the check is that none could be created.
The direct proof runs as the test's user: as root these sockets open; as another user
they cannot (then the proof says so).
"""
# expect: status=pass kind=leak min_tried=3 proof=direct
import json
import socket


def probe():
    tried, found = 0, []
    for family, kind, proto in ((socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP),
                                (socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW),
                                (socket.AF_PACKET, socket.SOCK_RAW, 0x0300)):
        tried += 1
        try:
            socket.socket(family, kind, proto).close()
            found.append(f"family {family} raw")
        except OSError:
            pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
