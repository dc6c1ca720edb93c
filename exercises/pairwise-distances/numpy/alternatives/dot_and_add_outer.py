"""np.dot for the cross term and np.add.outer for the sum of squared lengths."""

import numpy as np


def squared_lengths(a):
    return np.sum(np.square(a), axis=1)


def pairwise_sq_dists(x, y):
    d = np.add.outer(squared_lengths(x), squared_lengths(y)) - 2 * np.dot(x, y.T)
    return np.where(d < 0, 0, d)
