"""Works in place, but only on the tensors it made itself."""

import torch


def pairwise_sq_dists(x, y):
    d = torch.matmul(x, y.T)
    d.mul_(-2)
    d.add_(x.square().sum(dim=1, keepdim=True))
    d.add_(y.square().sum(dim=1))
    d.clamp_(min=0)
    return d
