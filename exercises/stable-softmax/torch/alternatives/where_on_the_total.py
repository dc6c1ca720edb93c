"""Chooses between weights / total and 0 with torch.where on the slice's total."""

import torch


def logsumexp(x, dim=-1):
    top = torch.max(x, dim=dim, keepdim=True)[0]
    return torch.log(torch.sum(torch.exp(x - top), dim=dim)) + torch.squeeze(top, dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.full(x.shape, True)
    neg_inf = torch.tensor(float("-inf"), dtype=x.dtype)
    kept = torch.where(mask, x, neg_inf)
    top = torch.max(kept, dim=dim, keepdim=True)[0]
    top = torch.where(top == neg_inf, torch.zeros_like(top), top)
    weights = torch.exp(kept - top)
    total = torch.sum(weights, dim=dim, keepdim=True)
    return torch.where(total > 0, weights / total, torch.zeros_like(weights))
