"""Pure Python: the points as lists of floats (tolist), one sum per pair, a list of rows."""

import numpy as np


def pairwise_sq_dists(x, y):
    xs, ys = x.tolist(), y.tolist()
    rows = [[sum((a - b) ** 2 for a, b in zip(p, q)) for q in ys] for p in xs]
    return np.array(rows, dtype=x.dtype).reshape(len(xs), len(ys))
