"""Centres the points for accuracy, but in place: the caller's x and y are moved.

Breaks: inputs_unchanged
"""

import numpy as np


def pairwise_sq_dists(x, y):
    centre = x.mean(axis=0)
    x -= centre
    y -= centre
    d = (x**2).sum(axis=1)[:, None] - 2 * x @ y.T + (y**2).sum(axis=1)[None, :]
    return np.maximum(d, 0)
