"""Scales a copy of q before the product, transposes k with transpose(axes), np.matmul."""

import numpy as np


def attention(q, k, v, causal=False):
    d = q.shape[-1]
    scaled_q = q * (1.0 / d**0.5)
    axes = list(range(k.ndim))
    axes[-1], axes[-2] = axes[-2], axes[-1]
    scores = np.matmul(scaled_q, k.transpose(axes))
    if causal:
        future = np.triu(np.ones(scores.shape[-2:], dtype=bool), k=1)
        scores[..., future] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.matmul(weights, v)
