"""The log-softmax written out: subtract each row's max, exp, sum, log."""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    m = logits.max(dim=1, keepdim=True).values
    shifted = logits - m
    log_p = shifted - shifted.exp().sum(dim=1, keepdim=True).log()
    keep = targets != ignore_index
    safe = torch.where(keep, targets, 0)
    picked = torch.gather(log_p, 1, safe.view(-1, 1)).view(-1)
    total = -(picked * keep.to(logits.dtype)).sum()
    return total / keep.sum().clamp(min=1).to(logits.dtype)
