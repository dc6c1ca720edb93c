"""Subtracts the maximum of the kept entries but computes exp of every entry before
multiplying by the mask: a huge masked value gives exp(...) = inf, and inf * 0 is NaN.

Breaks: masked_values_ignored
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    top = np.max(np.where(mask, x, -np.inf), axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    weights = np.exp(x - top) * mask
    total = np.sum(weights, axis=axis, keepdims=True)
    return weights / np.where(total > 0, total, 1)
