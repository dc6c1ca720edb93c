"""Shifts by a detached row max (softmax does not change when a row is shifted), in a helper."""

import torch


def log_softmax(x):
    with torch.no_grad():
        top = x.amax(dim=-1, keepdim=True)
    z = x - top
    return z - torch.log(torch.exp(z).sum(dim=-1, keepdim=True))


def cross_entropy(logits, targets, ignore_index=-100):
    keep = targets.ne(ignore_index)
    log_p = log_softmax(logits)
    safe = targets.clone()
    safe[~keep] = 0
    nll = -log_p.gather(dim=1, index=safe.unsqueeze(-1)).squeeze(-1)
    nll = nll.masked_fill(~keep, 0.0)
    return nll.sum() / keep.sum().clamp(min=1)
