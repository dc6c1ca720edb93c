"""Computes in float64 whatever comes in, and casts the loss back to the dtype of the logits."""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    x = logits.double()
    keep = (targets != ignore_index).double()
    safe = torch.where(targets != ignore_index, targets, torch.zeros_like(targets))
    log_p = x.log_softmax(dim=1)
    nll = -torch.take_along_dim(log_p, safe[:, None], dim=1)[:, 0]
    loss = (nll * keep).sum() / torch.clamp(keep.sum(), min=1.0)
    return loss.to(logits.dtype)
