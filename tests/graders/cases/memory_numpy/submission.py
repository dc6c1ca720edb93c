import numpy as np


def double(x):
    block = np.ones((4, 1024, 1024, 1024), dtype=np.uint8)
    return block
