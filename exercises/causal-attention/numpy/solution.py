import math

import numpy as np


def attention(q, k, v, causal=False):
    """Scaled dot-product attention over any number of leading batch dimensions."""
    scores = q @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        size = scores.shape[-1]
        allowed = np.tril(np.ones((size, size), dtype=bool))
        scores = np.where(allowed, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v
