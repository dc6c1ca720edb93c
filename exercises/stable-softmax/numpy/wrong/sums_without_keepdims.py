"""softmax divides by a sum taken without keepdims, which does not line up with x's axes.

Breaks: softmax_along_axis
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis)
    return top + np.log(np.sum(np.exp(x - np.expand_dims(top, axis)), axis=axis))


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    kept = np.where(mask, x, -np.inf)
    top = np.max(kept, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    weights = np.exp(kept - top)
    total = np.sum(weights, axis=axis)
    return weights / np.where(total > 0, total, 1)
