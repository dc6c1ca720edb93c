"""Centres the points for accuracy, but in place: the caller's x and y are moved.

Breaks: inputs_unchanged
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    centre = x.mean(dim=0)
    x -= centre
    y -= centre
    return (x.pow(2).sum(1, keepdim=True) - 2 * x @ y.T + y.pow(2).sum(1)).clamp_min(0)
