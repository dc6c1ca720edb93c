"""Squeezes the result, which drops the axis of size 1 when n or m is 1.

Breaks: small_sizes
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    return (x.pow(2).sum(1, keepdim=True) - 2 * x @ y.T + y.pow(2).sum(1)).clamp_min(0).squeeze()
