"""softmax divides by the sum of the whole array instead of the sum along the axis.

Breaks: softmax_along_axis
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    kept = np.where(mask, x, -np.inf)
    top = np.max(kept, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    weights = np.exp(kept - top)
    total = np.sum(weights)
    return weights / total if total > 0 else weights
