"""Two nested loops, one np.sum per pair of points, into a list of lists."""

import numpy as np


def pairwise_sq_dists(x, y):
    rows = []
    for a in x:
        rows.append([np.sum((a - b) ** 2) for b in y])
    return np.array(rows, dtype=x.dtype).reshape(len(x), len(y))
