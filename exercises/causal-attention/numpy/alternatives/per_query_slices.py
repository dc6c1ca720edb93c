"""One query at a time, with the keys sliced to 0..i when causal, then np.stack."""

import math

import numpy as np


def attention(q, k, v, causal=False):
    d = q.shape[-1]
    rows = []
    for i in range(q.shape[-2]):
        end = i + 1 if causal else k.shape[-2]
        qi = q[..., i : i + 1, :]
        ki, vi = k[..., :end, :], v[..., :end, :]
        scores = qi @ np.swapaxes(ki, -1, -2) / math.sqrt(d)
        e = np.exp(scores - scores.max(axis=-1, keepdims=True))
        rows.append((e / e.sum(axis=-1, keepdims=True)) @ vi)
    return np.concatenate(rows, axis=-2)
