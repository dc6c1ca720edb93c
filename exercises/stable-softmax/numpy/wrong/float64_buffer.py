"""Builds the masked logits in np.full(shape, -np.inf), a float64 array: float32 in,
float64 out.

Breaks: keeps_dtype
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    kept = np.full(x.shape, -np.inf)
    kept[mask] = x[mask]
    top = np.max(kept, axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0
    weights = np.exp(kept - top)
    total = np.sum(weights, axis=axis, keepdims=True)
    total[total == 0] = 1
    return weights / total
