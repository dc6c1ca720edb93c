"""Computes in float64 whatever the inputs, then converts back to their dtype."""

import torch


def pairwise_sq_dists(x, y):
    x64, y64 = x.double(), y.double()
    d = (x64**2).sum(1).view(-1, 1) - 2.0 * torch.mm(x64, y64.t()) + (y64**2).sum(1).view(1, -1)
    return torch.relu(d).to(x.dtype)
