"""Opens AF_INET6 sockets: TCP to [::1] and to the IPv4-mapped service address.

Leak probe: returns the right answer (passes); the check is that no IPv6 socket could even
be created.
"""
# expect: status=pass kind=leak min_tried=3 proof=direct
import json
import socket

PORT = int("@@SERVER_PORT@@")


def probe():
    tried, found = 0, []
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
        tried += 1
        try:
            socket.socket(socket.AF_INET6, kind).close()
            found.append(f"AF_INET6 socket type {kind}")
        except OSError:
            pass
    tried += 1
    try:
        with socket.create_connection(("::ffff:127.0.0.1", PORT), timeout=1):
            found.append(f"[::ffff:127.0.0.1]:{PORT}")
    except OSError:
        pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
