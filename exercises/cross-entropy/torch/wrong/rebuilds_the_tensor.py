"""Rebuilds the loss with torch.tensor(...): right value, but cut off from the graph.

Breaks: gradient_value
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    value = (nll * keep).sum() / keep.sum().clamp(min=1)
    return torch.tensor(value.item(), dtype=logits.dtype)
