"""Opens AF_NETLINK sockets (route, audit, uevents) and dumps the host's interfaces.

Leak probe: returns the right answer (passes); the check is that none could be created.
"""
# expect: status=pass kind=leak min_tried=3 proof=direct
import json
import socket
import struct


def probe():
    tried, found = 0, []
    for proto in (socket.NETLINK_ROUTE, 15, 9):  # route, kobject uevent, audit
        tried += 1
        try:
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        except OSError:
            continue
        with s:
            found.append(f"netlink {proto}")
            if proto == socket.NETLINK_ROUTE:
                # RTM_GETLINK dump
                msg = struct.pack("=LHHLL", 32, 18, 0x301, 1, 0) + struct.pack("=BxHiII", 0, 0, 0, 0, 0)
                s.sendto(msg, (0, 0))
                s.settimeout(1)
                try:
                    found.append(f"route dump {len(s.recv(65536))} bytes")
                except OSError:
                    pass
    return {"tried": tried, "found": found}


def double(x):
    print("REPORT " + json.dumps(bounded(probe())))
    return x * 2
