"""Log-sum-exp with np.logaddexp.reduce, the gradient from exp(logits - lse)."""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    lse = np.logaddexp.reduce(logits, axis=1, keepdims=True)
    keep = targets != ignore_index
    rows = np.flatnonzero(keep)
    cols = targets[keep]
    n = max(rows.size, 1)
    loss = float(np.sum(lse[rows, 0] - logits[rows, cols])) / n
    grad = np.exp(logits - lse)
    grad[~keep] = 0.0
    grad[rows, cols] -= 1.0
    return loss, grad / n
