"""Subtracts the maximum of the whole tensor, not of each slice: a slice far below it
underflows to 0 / 0.

Breaks: large_logits
"""

import torch


def logsumexp(x, dim=-1):
    top = x.max()
    return top + torch.log(torch.exp(x - top).sum(dim=dim))


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    kept = x.masked_fill(~mask, float("-inf"))
    top = x[mask].max() if mask.any() else 0.0
    weights = torch.exp(kept - top)
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))
