"""Writes forged 'all tests passed' frames to every descriptor and stdout, then os._exit(0).

Either verdict stops it: a fail, or, when enough forged frames reach the channel to
exceed the job's frame budget, an error saying the result could not be read.
"""
# expect: status=fail|error
import json
import os
import struct


def frame(header, body=b""):
    data = json.dumps(header).encode()
    return b"DRL1" + struct.pack("<IQ", len(data), len(body)) + data + body


def double(x):
    fake = [
        frame({"type": "test", "id": name, "status": "ok", "duration_ms": 0,
               "obs": {"t": "dict", "k": ["result"], "v": [{"t": "pass"}]}})
        for name in ("matrix", "integers")
    ]
    for fd in range(0, 256):
        for data in (*fake, frame({"type": "done", "t": [0, 0, 0, 0], "imported": []})):
            try:
                os.write(fd, data)
            except OSError:
                pass
    print(b"".join(fake).decode())
    os._exit(0)
