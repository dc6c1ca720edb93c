"""Hands the work to F.cross_entropy, with a guard for the all-ignored batch (where
F.cross_entropy gives NaN): the values are right, but PyTorch's nll_loss runs.

Breaks: no_nll_loss
"""

import torch.nn.functional as F


def cross_entropy(logits, targets, ignore_index=-100):
    if bool((targets == ignore_index).all()):
        return (logits * 0.0).sum()  # 0.0, still on the graph
    return F.cross_entropy(logits, targets, ignore_index=ignore_index)
