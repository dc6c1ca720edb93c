"""Multiplies in the wrong order: the table comes out (m, n), the rows of y first.

Breaks: values
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    return (y.pow(2).sum(1, keepdim=True) - 2 * y @ x.T + x.pow(2).sum(1)).clamp_min(0)
