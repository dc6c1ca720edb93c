"""softmax divides by the sum of the whole tensor instead of the sum along dim.

Breaks: softmax_along_dim
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
    total = weights.sum()
    return weights / total if total > 0 else weights
