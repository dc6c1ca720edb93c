"""Sums the squares of x without keepdim: the (n,) vector is added along the rows,
as if it were the lengths of y.

Breaks: values
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    return (x.pow(2).sum(1) - 2 * x @ y.T + y.pow(2).sum(1, keepdim=True).T).clamp_min(0)
