"""Floods the result pipe with frames whose headers are millions of tiny JSON values
(`[[],[],...]`: two bytes that would become a 56-byte list each in the server)."""
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
    header = b'{"type":"test","id":"matrix","x":[' + b"[]," * 1_300_000 + b"[]]}"
    send(frame(header) * 7)
