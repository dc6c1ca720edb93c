"""Writes 500 MB straight to file descriptor 1 with os.write."""
# expect: status=fail test_message~="^output limit exceeded: your code wrote more than 1024 KiB to stdout/stderr \(line \d+(: [^\n]*)?\)$"
import os


def double(x):
    chunk = b"spam" * 250_000
    for _ in range(500):
        os.write(1, chunk)
    return x * 2
