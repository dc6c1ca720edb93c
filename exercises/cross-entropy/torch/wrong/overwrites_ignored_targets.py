"""Makes the ignored targets gatherable with targets.masked_fill_(..., 0): the caller's tensor changes.

Breaks: inputs_unchanged
"""

import torch


def cross_entropy(logits, targets, ignore_index=-100):
    log_p = torch.log_softmax(logits, dim=1)
    keep = targets != ignore_index
    targets.masked_fill_(~keep, 0)  # the trailing _ writes in place; masked_fill makes a copy
    nll = -log_p.gather(1, targets[:, None]).squeeze(1)
    return (nll * keep).sum() / keep.sum().clamp(min=1)
