"""Saves memory by squaring x and y in place once the product is done: the caller's
points are changed.

Breaks: inputs_unchanged
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    cross = x @ y.T
    x.pow_(2)
    y.pow_(2)
    return (x.sum(1, keepdim=True) - 2 * cross + y.sum(1)).clamp_min(0)
