"""Writes the log-softmax by hand but sums the picked entries with F.nll_loss: the
values are right, but PyTorch's nll_loss runs, and it is the part to write yourself.

Breaks: no_nll_loss
"""

import torch
import torch.nn.functional as F


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    total = F.nll_loss(log_p, targets, ignore_index=ignore_index, reduction="sum")
    return total / (targets != ignore_index).sum().clamp(min=1)
