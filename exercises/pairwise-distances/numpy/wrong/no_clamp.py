"""Expands the square but never clamps: equal points can come out slightly negative.

Breaks: not_negative
"""

import numpy as np


def pairwise_sq_dists(x, y):
    return (x**2).sum(axis=1)[:, None] - 2 * x @ y.T + (y**2).sum(axis=1)[None, :]
