"""F.one_hot of the targets times the log-probabilities, summed."""

import torch
import torch.nn.functional as F


def cross_entropy(logits, targets, ignore_index=-100):
    keep = targets != ignore_index
    safe = torch.where(keep, targets, torch.zeros_like(targets))
    one_hot = F.one_hot(safe, num_classes=logits.shape[1]).to(logits.dtype)
    one_hot = one_hot * keep.unsqueeze(1)
    log_p = F.log_softmax(logits, dim=-1)
    return -(one_hot * log_p).sum() / keep.sum().clamp(min=1)
