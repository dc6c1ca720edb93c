"""Transposes k with fixed axes (0, 2, 1) for 3-D inputs: 4-D and 5-D inputs fail.

Breaks: batch_dims
"""

import math

import numpy as np


def attention(q, k, v, causal=False):
    kt = k.transpose(0, 2, 1) if k.ndim == 3 else k.T
    scores = q @ kt / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
