"""Writes 500 MB through sys.__stdout__.buffer, the interpreter's original stdout object."""
# expect: status=fail test_message~="^output limit exceeded: your code wrote more than 1024 KiB to stdout/stderr \(line \d+(: [^\n]*)?\)$"
import sys


def double(x):
    chunk = b"spam" * 250_000
    for _ in range(500):
        sys.__stdout__.buffer.write(chunk)
        sys.__stdout__.buffer.flush()
    return x * 2
