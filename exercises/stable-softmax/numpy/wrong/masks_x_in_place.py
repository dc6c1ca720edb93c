"""Hides the masked entries by writing -inf into the caller's x (x[~mask] = -np.inf)
and shifts it with x -= top: the values are right, but x comes back changed.

Breaks: leaves_inputs_alone
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is not None:
        x[~mask] = -np.inf
    top = np.max(x, axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0
    x -= top
    weights = np.exp(x)
    total = np.sum(weights, axis=axis, keepdims=True)
    total[total == 0] = 1
    return weights / total
