"""Reads stdin (input(), sys.stdin.read(), os.read(0)), hoping to block forever."""
# expect: status=fail test_message~="^your code raised EOFError: EOF when reading a line \(line \d+(: [^\n]*)?\)$"
import os
import sys


def double(x):
    assert sys.stdin.read() == ""
    assert os.read(0, 100) == b""
    return input()
