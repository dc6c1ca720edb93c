"""Computes with NumPy and wraps the result in a tensor: no graph, no gradients.

Breaks: gradients
"""

import math

import numpy as np
import torch


def attention(q, k, v, causal=False):
    qn, kn, vn = (x.detach().numpy() for x in (q, k, v))
    scores = qn @ np.swapaxes(kn, -1, -2) / math.sqrt(qn.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return torch.from_numpy(e / e.sum(axis=-1, keepdims=True) @ vn)
