"""Takes exp(x - top) of every entry, masked ones included, and only then sets the masked
ones to 0 with torch.where: the values are right, but a masked 1e4 makes exp give inf,
and where's backward multiplies that inf by the 0 gradient it sends to the masked
branch: 0 * inf is NaN, and the NaN spreads to every entry of x's gradient.

Breaks: gradients
"""

import torch


def logsumexp(x, dim=-1):
    return torch.logsumexp(x, dim=dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        mask = torch.ones_like(x, dtype=torch.bool)
    top = torch.amax(x.masked_fill(~mask, float("-inf")), dim=dim, keepdim=True)
    top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    weights = torch.where(mask, torch.exp(x - top), torch.zeros_like(x))
    total = weights.sum(dim=dim, keepdim=True)
    return weights / torch.where(total > 0, total, torch.ones_like(total))
