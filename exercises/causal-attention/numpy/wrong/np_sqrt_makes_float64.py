"""Divides by np.sqrt(d), a float64 NumPy scalar: under NumPy 2, float32 inputs give a
float64 result.

Breaks: dtype
"""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
