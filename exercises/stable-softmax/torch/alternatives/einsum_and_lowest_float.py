"""Masks with the lowest finite float instead of -inf, sums with einsum, and zeroes the
fully masked slices with torch.where on mask.any()."""

import torch


def logsumexp(x, dim=-1):
    m = torch.amax(x, dim, keepdim=True)
    s = torch.einsum("...i->...", torch.exp(x - m).movedim(dim, -1))
    return torch.log(s) + m.squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    lowest = torch.finfo(x.dtype).min
    z = torch.where(mask, x, torch.full_like(x, lowest))
    e = torch.exp(z - torch.amax(z, dim, keepdim=True)) * mask
    s = torch.einsum("...i->...", e.movedim(dim, -1)).unsqueeze(-1).movedim(-1, dim)
    p = e / s.clamp_min(torch.finfo(x.dtype).tiny)
    return torch.where(mask.any(dim, keepdim=True), p, torch.zeros_like(p))
