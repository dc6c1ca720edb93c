"""Divides the sum of the kept losses by N, the number of rows, not by the number of kept rows.

Breaks: ignored_rows
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    nll = -log_p.gather(1, safe[:, None]).squeeze(1)
    return (nll * keep).sum() / len(targets)
