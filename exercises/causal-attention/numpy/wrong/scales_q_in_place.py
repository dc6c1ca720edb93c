"""Scales the caller's q in place (q /= √d): the result is right, but q is changed.

Breaks: inputs_unchanged
"""

import math

import numpy as np


def attention(q, k, v, causal=False):
    q /= math.sqrt(q.shape[-1])
    scores = q @ np.swapaxes(k, -1, -2)
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
