"""torch.logsumexp and torch.softmax on -inf-filled logits; the masked entries (all of a
fully masked slice, where softmax gave NaN) are set to 0 afterwards."""

import torch


def logsumexp(x, dim=-1):
    return torch.logsumexp(x, dim=dim)


def softmax(x, dim=-1, mask=None):
    if mask is None:
        return torch.softmax(x, dim=dim)
    probs = torch.softmax(x.masked_fill(~mask, float("-inf")), dim=dim)
    return probs.masked_fill(~mask, 0.0)
