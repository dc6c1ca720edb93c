"""Subtracts the maximum of the whole array, not of each slice: a slice far below it
underflows to 0 / 0.

Breaks: large_logits
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x)
    return top + np.log(np.sum(np.exp(x - top), axis=axis))


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    kept = np.where(mask, x, -np.inf)
    top = np.max(x[mask]) if mask.any() else 0
    weights = np.exp(kept - top)
    total = np.sum(weights, axis=axis, keepdims=True)
    return weights / np.where(total > 0, total, 1)
