"""Replaces the 0 / 0 loss by 0 with torch.where: the loss is 0, but its gradient is NaN.

Breaks: all_ignored
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    n_kept = keep.sum()
    total = (nll * keep).sum()
    return torch.where(n_kept > 0, total / n_kept, torch.zeros_like(total))
