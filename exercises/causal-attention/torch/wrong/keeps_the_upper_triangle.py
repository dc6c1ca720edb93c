"""Builds the causal mask with triu: each query sees the keys after it, not before.

Breaks: causal
"""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).triu(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
