"""Does not guard fully masked slices: their maximum is -inf and -inf - (-inf) is NaN.

Breaks: fully_masked
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
    weights = np.exp(kept - top)
    return weights / np.sum(weights, axis=axis, keepdims=True)
