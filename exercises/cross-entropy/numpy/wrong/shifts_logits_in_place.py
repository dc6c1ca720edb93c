"""Shifts the logits with logits -= row max: the caller's logits array is changed in place.

Breaks: inputs_unchanged
"""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    logits -= logits.max(axis=1, keepdims=True)  # writes into the caller's array
    log_p = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    keep = targets != ignore_index
    rows = np.arange(len(targets))
    safe = np.where(keep, targets, 0)
    n = max(int(keep.sum()), 1)
    loss = -(log_p[rows, safe] * keep).sum() / n
    grad = np.exp(log_p)
    grad[rows, safe] -= 1
    grad[~keep] = 0
    return loss, grad / n
