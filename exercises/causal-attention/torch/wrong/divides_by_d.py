"""Divides the scores by d instead of by the square root of d.

Breaks: scale
"""

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / q.shape[-1]
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
