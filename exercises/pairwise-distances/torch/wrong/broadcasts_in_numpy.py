"""Goes through NumPy and subtracts every pair there: no large tensor, but an (n, m, d)
NumPy array.

Breaks: no_big_intermediate
"""

import numpy as np  # noqa: F401
import torch


def pairwise_sq_dists(x, y):
    a, b = x.numpy(), y.numpy()
    return torch.from_numpy(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=-1))
