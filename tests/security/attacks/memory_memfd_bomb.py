"""Fills many memfd files: their pages are not mapped, so RLIMIT_AS does not count them.

Each memfd is capped at the output cap (RLIMIT_FSIZE, 1 MiB), so the attack opens as many
as it can. It stops itself at 384 MiB (to spare the test machine) and returns the right
answer only if it got that far, so a pass means the attack worked.
"""
# expect: status=fail test_message~="Too many open files"
import os

CAP = 384


def double(x):
    held = []
    chunk = b"m" * 2**20
    while len(held) < CAP:
        fd = os.memfd_create("bomb")
        os.write(fd, chunk)
        held.append(fd)
    return x * 2
