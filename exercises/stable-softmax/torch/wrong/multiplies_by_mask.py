"""Subtracts the maximum of the kept entries but computes exp of every entry before
multiplying by the mask: a huge masked value gives exp(...) = inf, and inf * 0 is NaN.

Breaks: masked_values_ignored
"""

import torch


def logsumexp(x, dim=-1):
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    top = torch.amax(x.masked_fill(~mask, float("-inf")), dim=dim, keepdim=True)
    top = torch.nan_to_num(top, neginf=0.0)
    weights = torch.exp(x - top) * mask
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))
