"""Replaces masked entries by -1e9 instead of leaving them out: a fully masked slice
becomes uniform (1/n everywhere) instead of zeros.

Breaks: fully_masked
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is not None:
        x = np.where(mask, x, -1e9)
    top = np.max(x, axis=axis, keepdims=True)
    weights = np.exp(x - top)
    return weights / np.sum(weights, axis=axis, keepdims=True)
