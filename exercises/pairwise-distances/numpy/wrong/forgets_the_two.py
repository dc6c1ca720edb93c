"""Forgets the factor 2 of the cross term.

Breaks: values
"""

import numpy as np


def pairwise_sq_dists(x, y):
    d = (x**2).sum(axis=1)[:, None] - x @ y.T + (y**2).sum(axis=1)[None, :]
    return np.maximum(d, 0)
