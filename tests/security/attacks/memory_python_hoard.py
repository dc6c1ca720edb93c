"""Allocates Python bytearrays far past the memory limit."""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded \(line \d+(: [^\n]*)?\)$"


def double(x):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 2**20))
