"""Forges a test frame holding a call record of 3.5 million entries (10.5 MB)."""
# expect: status=error message~="could not read your code's result"
import json
import os
import stat
import struct


def frame(header_bytes, body=b""):
    return b"DRL1" + struct.pack("<IQ", len(header_bytes), len(body)) + header_bytes + body


def send(data):
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass
    os._exit(0)


def double(x):
    calls = {"t": "calls", "phase": "forward", "v": [1] * 3_500_000}
    obs = {"t": "dict", "k": ["result"], "v": [calls]}
    header = json.dumps({"type": "test", "id": "matrix", "status": "ok",
                         "duration_ms": 0, "obs": obs, "output": ""}).encode()
    send(frame(header))
