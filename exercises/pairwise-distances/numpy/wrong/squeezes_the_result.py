"""Squeezes the result, which drops the axis of size 1 when n or m is 1.

Breaks: small_sizes
"""

import numpy as np


def pairwise_sq_dists(x, y):
    d = (x**2).sum(axis=1)[:, None] - 2 * x @ y.T + (y**2).sum(axis=1)[None, :]
    return np.squeeze(np.maximum(d, 0))
