"""Subtracts every pair with broadcasting: right values, but an (n, m, d) array.

Breaks: no_big_intermediate
"""

import numpy as np


def pairwise_sq_dists(x, y):
    diff = x[:, np.newaxis, :] - y[np.newaxis, :, :]
    return (diff**2).sum(axis=-1)
