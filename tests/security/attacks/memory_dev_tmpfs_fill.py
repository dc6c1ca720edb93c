"""Fills the sandbox's /dev (a tmpfs in host memory, shared by every job of a worker).

It stops at 384 MiB (to spare the test machine) and returns the right answer only if it
got that far, so a pass means the attack worked.
"""
# expect: status=fail test_message~="Read-only file system"
import os


def double(x):
    chunk = b"d" * 2**20
    for i in range(384):
        with open(f"/dev/fill-{i}", "wb") as f:
            f.write(chunk)
    for i in range(384):
        os.unlink(f"/dev/fill-{i}")
    return x * 2
