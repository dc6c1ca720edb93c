"""Normalises over the queries (dim=-2) instead of over the keys.

Breaks: softmax_over_keys
"""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-2) @ v
