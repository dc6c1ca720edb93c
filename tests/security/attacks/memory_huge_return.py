"""Returns a 300 MiB array, far above the 64 MiB result limit."""
# expect: status=fail test_message~="^the value double\(x\) returned cannot be checked: it takes more than 64 MiB$"
import numpy as np


def double(x):
    return np.zeros(300 * 2**20 // 8 + 1)
