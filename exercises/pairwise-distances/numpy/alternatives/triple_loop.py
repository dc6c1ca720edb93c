"""Three nested loops over indices, one element of x and of y at a time."""

import numpy as np


def pairwise_sq_dists(x, y):
    n, d = x.shape
    m = y.shape[0]
    out = np.zeros((n, m), dtype=x.dtype)
    for i in range(n):
        for j in range(m):
            total = 0.0
            for k in range(d):
                diff = x[i, k] - y[j, k]
                total += diff * diff
            out[i, j] = total
    return out
