"""Divides the output of torch.exp in place (weights /= total): exp keeps its output for
the backward pass, so backward fails ("modified by an inplace operation").

Breaks: gradients
"""

import torch


def logsumexp(x, dim=-1):
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    kept = x.masked_fill(~mask, float("-inf"))
    top = torch.amax(kept, dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    weights = torch.exp(kept - top)
    total = weights.sum(dim=dim, keepdim=True)
    weights /= torch.where(total > 0, total, torch.ones_like(total))
    return weights
