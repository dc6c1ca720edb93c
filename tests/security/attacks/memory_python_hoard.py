"""Allocates Python bytearrays far past the memory limit."""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded \(line \d+\)$"


def double(x):
    hoard = []
    while True:
        hoard.append(bytearray(50 * 2**20))
