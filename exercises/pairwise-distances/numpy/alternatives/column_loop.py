"""Accumulates one coordinate at a time: d steps of an (n, m) table of differences."""

import numpy as np


def pairwise_sq_dists(x, y):
    total = np.zeros((len(x), len(y)), dtype=x.dtype)
    for k in range(x.shape[1]):
        total += np.subtract.outer(x[:, k], y[:, k]) ** 2
    return total
