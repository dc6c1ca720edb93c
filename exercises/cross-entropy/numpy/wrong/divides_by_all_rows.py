"""Divides the sum of the kept losses by N, the number of rows, not by the number of kept rows.

Breaks: ignored_rows
"""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    keep = targets != ignore_index
    rows = np.arange(len(targets))
    safe = np.where(keep, targets, 0)
    n = len(targets)
    loss = -(log_p[rows, safe] * keep).sum() / n
    grad = np.exp(log_p)
    grad[rows, safe] -= 1
    grad[~keep] = 0
    return loss, grad / n
