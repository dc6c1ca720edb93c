"""A loop over the rows of x: one (m, d) block of differences at a time."""

import numpy as np


def pairwise_sq_dists(x, y):
    out = np.empty((x.shape[0], y.shape[0]), dtype=x.dtype)
    for i in range(x.shape[0]):
        diff = x[i] - y  # (m, d)
        out[i] = (diff**2).sum(axis=1)
    return out
