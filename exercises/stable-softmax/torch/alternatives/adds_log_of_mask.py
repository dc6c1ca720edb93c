"""Adds log(mask) to the logits (log 0 = -inf), then x.softmax and nan_to_num."""

import torch


def logsumexp(x, dim=-1):
    m = x.max(dim, keepdim=True).values
    return torch.log(torch.exp(x - m).sum(dim, keepdim=True)).add(m).squeeze(dim)


def softmax(x, dim=-1, mask=None):
    if mask is not None:
        x = x + torch.log(mask.to(x.dtype))
    return x.softmax(dim).nan_to_num(nan=0.0)
