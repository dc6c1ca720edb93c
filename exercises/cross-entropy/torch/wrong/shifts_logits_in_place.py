"""Shifts the logits by their row max in place under torch.no_grad(): the caller's logits change.

Breaks: inputs_unchanged
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    with torch.no_grad():  # dodges autograd's in-place error, but still writes into logits
        logits -= logits.max(dim=1, keepdim=True).values
    log_p = logits - logits.exp().sum(dim=1, keepdim=True).log()
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    return (nll * keep).sum() / keep.sum().clamp(min=1)
