"""Forges a test frame whose duration is a finite but absurd number (1e300 ms)."""
# expect: status=fail test_message~="its duration is not a number of milliseconds"
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
    frames = b""
    for name in ("matrix", "integers"):
        header = {"type": "test", "id": name, "status": "raised", "output": "",
                  "duration_ms": 1e300}
        frames += frame(json.dumps(header).encode())
    frames += frame(json.dumps({"type": "done", "imported": []}).encode())
    send(frames)
