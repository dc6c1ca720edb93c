"""Squeezes the gathered column with .squeeze(), which also drops the row axis when N = 1.

Breaks: small_shapes
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -log_p.gather(1, safe[:, None]).squeeze()
    return nll[keep].sum() / keep.sum().clamp(min=1)
