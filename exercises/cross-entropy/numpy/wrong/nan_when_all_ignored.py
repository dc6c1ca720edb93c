"""Takes the mean over the kept rows and divides the gradient by their count: 0 / 0 is NaN when none is kept.

Breaks: all_ignored
"""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    keep = targets != ignore_index
    rows = np.arange(len(targets))
    safe = np.where(keep, targets, 0)
    with np.errstate(all="ignore"):
        loss = -log_p[rows, safe][keep].mean()
        grad = np.exp(log_p)
        grad[rows, safe] -= 1
        grad[~keep] = 0
        grad = grad / keep.sum()
    return loss, grad
