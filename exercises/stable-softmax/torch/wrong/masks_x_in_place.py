"""Hides the masked entries with x.masked_fill_(~mask, -inf), which writes into the
caller's tensor: the values (and gradients) are right, but x comes back changed.

Breaks: leaves_inputs_alone
"""

import torch


def logsumexp(x, dim=-1):
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is not None:
        x.masked_fill_(~mask, float("-inf"))
    top = torch.amax(x, dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    weights = torch.exp(x - top)
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))
