"""Reads the mask the other way round: leaves out the entries where it is True.

Breaks: masked_entries
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.zeros(x.shape, dtype=bool)
    kept = np.where(mask, -np.inf, x)
    top = np.max(kept, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    weights = np.exp(kept - top)
    total = np.sum(weights, axis=axis, keepdims=True)
    return weights / np.where(total > 0, total, 1)
