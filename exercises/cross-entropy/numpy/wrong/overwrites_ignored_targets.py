"""Makes the ignored targets indexable by writing 0 into targets itself: the caller's array changes.

Breaks: inputs_unchanged
"""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    keep = targets != ignore_index
    targets[~keep] = 0  # should be a new array: np.where(keep, targets, 0)
    rows = np.arange(len(targets))
    n = max(int(keep.sum()), 1)
    loss = -(log_p[rows, targets] * keep).sum() / n
    grad = np.exp(log_p)
    grad[rows, targets] -= 1
    grad[~keep] = 0
    return loss, grad / n
