"""A boolean one-hot mask built by comparison and an einsum to pick the entries."""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    classes = torch.arange(logits.shape[1])
    mask = (classes[None, :] == targets[:, None]) & (targets != ignore_index)[:, None]
    log_p = torch.log_softmax(logits, 1)
    total = -torch.einsum("nc,nc->", log_p, mask.to(log_p.dtype))
    n_kept = int(mask.sum())
    return total / (n_kept if n_kept else 1)
