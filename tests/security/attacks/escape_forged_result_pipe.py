"""Finds the result pipe (the one FIFO it may write), forges a full, well-formed result with
arrays of the right shape and dtype (but not the right values) and exits before the real
harness can speak."""
# expect: status=fail test_message~="^result: values differ"
import json
import os
import stat
import struct

import numpy as np


def frame(header, body=b""):
    data = json.dumps(header).encode()
    return b"DRL1" + struct.pack("<IQ", len(data), len(body)) + data + body


def arr(a):
    return {"t": "ndarray", "dtype": a.dtype.name, "shape": list(a.shape), "buf": [0, a.nbytes]}


def double(x):
    mat, ints = np.zeros((3, 3)), np.zeros(8, dtype=np.int64)
    out = b""
    for name, a in (("matrix", mat), ("integers", ints)):
        obs = {"t": "dict", "k": ["result"], "v": [arr(a)]}
        out += frame({"type": "test", "id": name, "status": "ok", "duration_ms": 0,
                      "obs": obs, "output": "", "output_truncated": False}, a.tobytes())
    out += frame({"type": "done", "t": [0, 0, 0, 0], "imported": []})
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, out)
        except OSError:
            pass
    os._exit(0)
