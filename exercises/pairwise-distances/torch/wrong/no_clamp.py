"""Expands the square but never clamps: equal points can come out slightly negative.

Breaks: not_negative
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    return x.pow(2).sum(1, keepdim=True) - 2 * x @ y.T + y.pow(2).sum(1)
