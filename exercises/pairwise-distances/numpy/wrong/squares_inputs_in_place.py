"""Saves memory by squaring x and y in place once the product is done: the caller's
points are changed.

Breaks: inputs_unchanged
"""

import numpy as np


def pairwise_sq_dists(x, y):
    cross = x @ y.T
    np.square(x, out=x)
    np.square(y, out=y)
    d = x.sum(axis=1)[:, None] - 2 * cross + y.sum(axis=1)[None, :]
    return np.maximum(d, 0)
