"""Zeroes the future weights after the softmax: the rows no longer sum to 1.

Breaks: causal
"""

import math

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    if causal:
        weights = np.tril(weights)
    return weights @ v
