"""Uses k.T, which reverses every axis: right for 2-D inputs only.

Breaks: batch_dims
"""

import math

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ k.T / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) @ v
