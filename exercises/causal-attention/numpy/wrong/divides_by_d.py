"""Divides the scores by d instead of by the square root of d.

Breaks: scale
"""

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ np.swapaxes(k, -1, -2) / q.shape[-1]
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
