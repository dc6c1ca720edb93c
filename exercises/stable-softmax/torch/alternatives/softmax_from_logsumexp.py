"""softmax as exp(x - logsumexp(x)), with torch.where on mask.any() for empty slices."""

import torch


def logsumexp(x, dim=-1):
    top = x.amax(dim, keepdim=True)
    return (x - top).exp().sum(dim, keepdim=True).log().add(top).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        return torch.exp(x - logsumexp(x, dim).unsqueeze(dim))
    any_kept = mask.any(dim, keepdim=True)
    z = torch.where(mask, x, torch.full_like(x, float("-inf")))
    z = torch.where(any_kept, z, torch.zeros_like(x))  # empty slices: finite, zeroed below
    probs = torch.exp(z - logsumexp(z, dim).unsqueeze(dim))
    return torch.where(mask, probs, torch.zeros_like(probs))
