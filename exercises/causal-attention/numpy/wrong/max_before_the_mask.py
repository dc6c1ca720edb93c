"""Subtracts each row's maximum before masking, so a masked score can set it: when a key
after the query scores far above every allowed key, all the allowed weights underflow
to 0 and the row is 0 / 0 = NaN.

Breaks: stable
"""

import math

import numpy as np


def attention(q, k, v, causal=False):
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    if causal:
        n = scores.shape[-1]
        weights = weights * np.tril(np.ones((n, n), dtype=scores.dtype))
    return weights / weights.sum(axis=-1, keepdims=True) @ v
