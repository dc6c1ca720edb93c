"""Works in place, but only on the arrays it made itself: the product and its sums."""

import numpy as np


def pairwise_sq_dists(x, y):
    d = x @ y.T
    d *= -2
    d += (x**2).sum(axis=1, keepdims=True)
    d += (y**2).sum(axis=1)
    np.maximum(d, 0, out=d)
    return d
