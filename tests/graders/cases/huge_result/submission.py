import numpy as np


def double(x):
    return np.zeros(300 * 1024 * 1024 // 8 + 1)
