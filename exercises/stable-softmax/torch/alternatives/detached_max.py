"""Subtracts a detached maximum (the shift cancels, so the gradient is unchanged)."""

import torch


def logsumexp(x, dim=-1):
    shift = x.detach().amax(dim=dim, keepdim=True)
    return torch.log(torch.sum(torch.exp(x - shift), dim=dim)) + shift.squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    shift = x.detach().masked_fill(~mask, float("-inf")).amax(dim=dim, keepdim=True)
    shift = torch.nan_to_num(shift, neginf=0.0)
    weights = torch.exp(x.masked_fill(~mask, float("-inf")) - shift)
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.clamp(total, min=torch.finfo(x.dtype).tiny)
