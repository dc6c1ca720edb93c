"""Multiplies the unnormalised exponentials by v, then divides by the row sums."""

import math

import numpy as np


def attention(q, k, v, causal=False):
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tri(n, dtype=bool), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e @ v) / e.sum(axis=-1, keepdims=True)
