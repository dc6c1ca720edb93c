"""Multiplies the scores by a 0/1 mask: a future score becomes 0, not -inf, and still counts.

Breaks: causal
"""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores * torch.tril(torch.ones(n, n, dtype=scores.dtype))
    return torch.softmax(scores, dim=-1) @ v
