"""Fills torch.zeros(n, m), float32 by default, so float64 inputs give a float32 result.

Breaks: dtype_kept
"""

import torch


def pairwise_sq_dists(x, y):
    out = torch.zeros(x.shape[0], y.shape[0])
    for i in range(x.shape[0]):
        out[i] = ((x[i] - y) ** 2).sum(dim=1)
    return out
