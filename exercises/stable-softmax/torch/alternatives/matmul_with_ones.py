"""Moves dim last and sums with a matrix product against a vector of ones; unsqueeze
instead of keepdim."""

import torch


def _sum_last(a):
    return a @ torch.ones(a.shape[-1], dtype=a.dtype)


def logsumexp(x, dim=-1):
    last = x.movedim(dim, -1)
    top = last.max(dim=-1).values
    return top + torch.log(_sum_last(torch.exp(last - top.unsqueeze(-1))))


def softmax(x, dim=-1, mask=None):
    last = x.movedim(dim, -1)
    keep = torch.ones_like(last, dtype=torch.bool) if mask is None else mask.movedim(dim, -1)
    logits = last.masked_fill(~keep, float("-inf"))
    top = torch.where(keep.any(dim=-1), logits.max(dim=-1).values, 0.0)
    weights = torch.exp(logits - top.unsqueeze(-1))
    total = _sum_last(weights)
    probs = weights / torch.where(total > 0, total, 1.0).unsqueeze(-1)
    return probs.movedim(-1, dim)
