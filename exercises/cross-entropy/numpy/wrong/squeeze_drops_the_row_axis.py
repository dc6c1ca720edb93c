"""Squeezes the picked column with .squeeze(), which also drops the row axis when N = 1.

Breaks: small_shapes
"""

import numpy as np


def cross_entropy(logits, targets, ignore_index=-100):
    z = logits - logits.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    keep = targets != ignore_index
    safe = np.where(keep, targets, 0)
    n = max(int(keep.sum()), 1)
    picked = np.take_along_axis(log_p, safe[:, None], axis=1).squeeze()
    loss = -picked[keep].sum() / n
    grad = np.exp(log_p)
    grad[np.arange(len(targets)), safe] -= 1
    grad[~keep] = 0
    return loss, grad / n
