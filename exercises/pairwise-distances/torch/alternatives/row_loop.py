"""A loop over the rows of x: one (m, d) block of differences at a time, stacked."""

import torch


def pairwise_sq_dists(x, y):
    rows = [((row - y) ** 2).sum(dim=1) for row in x]
    return torch.stack(rows)
