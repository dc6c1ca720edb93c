"""torch.addmm: the sum of squared lengths plus -2 times the product, in one call."""

import torch


def pairwise_sq_dists(x, y):
    lengths = x.pow(2).sum(-1).unsqueeze(1) + y.pow(2).sum(-1).unsqueeze(0)
    return torch.addmm(lengths, x, y.T, alpha=-2).clamp_min_(0)
