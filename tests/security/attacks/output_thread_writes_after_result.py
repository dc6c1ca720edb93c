"""Leaves threads that write forged result frames and garbage to every descriptor, forever,
while and after the tests run; returns a wrong answer so a forged pass would show."""
# expect: status=(fail|error)
import json
import os
import struct
import threading


def frame(header):
    data = json.dumps(header).encode()
    return b"DRL1" + struct.pack("<IQ", len(data), 0) + data


FORGED = b"".join(
    frame({"type": "test", "id": n, "status": "ok", "duration_ms": 0,
           "obs": {"t": "dict", "k": ["result"], "v": [1]}})
    for n in ("matrix", "integers")
) + frame({"type": "done"})


def spray():
    while True:
        for fd in range(3, 64):
            try:
                os.write(fd, FORGED + b"\x00garbage" * 100)
            except OSError:
                pass


started = False


def double(x):
    global started
    if not started:
        started = True
        for _ in range(2):
            threading.Thread(target=spray, daemon=False).start()
    return x * 3
