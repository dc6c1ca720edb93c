"""Takes the maximum over every entry, masked ones included, then multiplies by the
mask: a huge masked value makes the kept ones underflow to 0 / 0.

Breaks: masked_values_ignored
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    top = np.max(x, axis=axis, keepdims=True)
    weights = np.exp(x - top) * mask
    total = np.sum(weights, axis=axis, keepdims=True)
    return weights / np.where(mask.any(axis=axis, keepdims=True), total, 1)
