"""Sends a hundred thousand small frames: more than one job's result may hold."""
# expect: status=error message~="could not read your code's result \(more than \d+ frames\)"
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
    send(frame(b'{"type":"code_loaded"}') * 100_000)
