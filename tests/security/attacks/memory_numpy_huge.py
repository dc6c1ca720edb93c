"""Allocates and touches a 16 GiB NumPy array."""
# expect: status=fail test_message~="^memory limit of 512 MiB exceeded \(line \d+(: [^\n]*)?\)$"
import numpy as np


def double(x):
    block = np.ones((16, 2**30), dtype=np.uint8)
    return block
