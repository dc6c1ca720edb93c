"""Subtracts the maximum of the whole array: rows far below it become 0 / 0.

Breaks: stable
"""

import math

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max())
    return e / e.sum(axis=-1, keepdims=True) @ v
