"""Takes exp of the raw logits: exp(1000) overflows to inf and the loss becomes NaN.

Breaks: large_logits
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    e = torch.exp(logits)
    log_p = torch.log(e / e.sum(dim=1, keepdim=True))
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    return (nll * keep).sum() / keep.sum().clamp(min=1)
