"""Uses the nn.NLLLoss module on a log-softmax: a module instead of F.nll_loss, but the
same nll_loss kernel runs.

Breaks: no_nll_loss
"""

import torch
from torch import nn


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    total = nn.NLLLoss(ignore_index=ignore_index, reduction="sum")(log_p, targets)
    return total / (targets != ignore_index).sum().clamp(min=1)
