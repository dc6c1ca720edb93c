"""Transposes k with transpose(0, 1): right for 2-D inputs only.

Breaks: batch_dims
"""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(0, 1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
