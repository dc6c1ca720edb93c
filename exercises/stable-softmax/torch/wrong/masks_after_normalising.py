"""Normalises over every entry, then zeroes the masked ones: the rest no longer sums to 1.

Breaks: masked_entries
"""

import torch


def logsumexp(x, dim=-1):
    top = torch.amax(x, dim=dim, keepdim=True)
    return (top + torch.log(torch.exp(x - top).sum(dim=dim, keepdim=True))).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    probs = torch.softmax(x, dim=dim)
    if mask is not None:
        probs = probs * mask
    return probs
