"""Fills np.zeros((n, m)), float64 by default, so float32 inputs give a float64 result.

Breaks: dtype_kept
"""

import numpy as np


def pairwise_sq_dists(x, y):
    out = np.zeros((x.shape[0], y.shape[0]))
    for i in range(x.shape[0]):
        out[i] = ((x[i] - y) ** 2).sum(axis=1)
    return out
