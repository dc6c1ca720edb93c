"""Accumulates one coordinate at a time into a zeros table of the inputs' dtype."""

import torch


def pairwise_sq_dists(x, y):
    total = torch.zeros(x.shape[0], y.shape[0], dtype=x.dtype)
    for k in range(x.shape[1]):
        total += (x[:, k : k + 1] - y[:, k]) ** 2
    return total
