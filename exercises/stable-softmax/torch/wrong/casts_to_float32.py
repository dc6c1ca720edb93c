"""Starts with x = x.float() to be sure to work on floats: a float64 input comes back as
float32.

Breaks: keeps_dtype
"""

import torch


def logsumexp(x, dim=-1):
    x = x.float()
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    x = x.float()
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    kept = x.masked_fill(~mask, float("-inf"))
    top = torch.amax(kept, dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    weights = torch.exp(kept - top)
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))
