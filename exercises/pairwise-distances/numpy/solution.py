import numpy as np


def pairwise_sq_dists(x, y):
    """Squared distances between the rows of x (n, d) and of y (m, d), shape (n, m)."""
    x_sq = (x * x).sum(axis=1)  # (n,): squared length of each row of x
    y_sq = (y * y).sum(axis=1)  # (m,)
    d = x_sq[:, None] - 2 * (x @ y.T) + y_sq[None, :]  # (n, 1) - (n, m) + (1, m)
    return np.maximum(d, 0)  # rounding can leave tiny negatives
