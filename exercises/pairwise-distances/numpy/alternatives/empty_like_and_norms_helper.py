"""np.empty_like for the output, filled one row at a time from a helper that expands the
square for one point."""

import numpy as np


def row_of_distances(point, y, y_sq):
    return np.maximum(point @ point - 2 * (y @ point) + y_sq, 0)


def pairwise_sq_dists(x, y):
    y_sq = (y**2).sum(axis=1)
    out = np.empty_like(x, shape=(x.shape[0], y.shape[0]))
    for i, point in enumerate(x):
        out[i] = row_of_distances(point, y, y_sq)
    return out
