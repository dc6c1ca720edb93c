"""Works in place, but on its own copies of the inputs."""

import math

import numpy as np


def attention(q, k, v, causal=False):
    q = q.copy()
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.swapaxes(-1, -2)
    if causal:
        n = scores.shape[-1]
        for i in range(n):
            scores[..., i, i + 1 :] = -np.inf
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    return scores @ v
