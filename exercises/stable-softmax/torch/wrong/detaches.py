"""Works on x.detach() to keep autograd out of the way: the results have no grad_fn and
no gradient reaches x.

Breaks: gradients
"""

import torch


def logsumexp(x, dim=-1):
    x = x.detach()
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    x = x.detach()
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    kept = x.masked_fill(~mask, float("-inf"))
    top = torch.amax(kept, dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    weights = torch.exp(kept - top)
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))
