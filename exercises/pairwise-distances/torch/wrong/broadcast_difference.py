"""Subtracts every pair with broadcasting: right values, but an (n, m, d) tensor.

Breaks: no_big_intermediate
"""

import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    return ((x[:, None, :] - y[None, :, :]) ** 2).sum(dim=-1)
