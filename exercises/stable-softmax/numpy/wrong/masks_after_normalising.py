"""Normalises over every entry, then zeroes the masked ones: the rest no longer sums to 1.

Breaks: masked_entries
"""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(top + np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)), axis)


def softmax(x, axis=-1, mask=None):
    top = np.max(x, axis=axis, keepdims=True)
    weights = np.exp(x - top)
    probs = weights / np.sum(weights, axis=axis, keepdims=True)
    if mask is not None:
        probs = probs * mask
    return probs
