"""Takes the maximum over every entry, masked ones included, then multiplies by the
mask: a huge masked value makes the kept ones underflow to 0 / 0.

Breaks: masked_values_ignored
"""

import torch


def logsumexp(x, dim=-1):
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    top = torch.amax(x, dim=dim, keepdim=True)
    weights = torch.exp(x - top) * mask
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(mask.any(dim=dim, keepdim=True), total, torch.ones_like(total))
