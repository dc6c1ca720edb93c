"""Scales the caller's q in place (q /= √d): the result is right, but q is changed.

Breaks: inputs_unchanged
"""

import math

import torch


def attention(q, k, v, causal=False):
    q /= math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-2, -1)
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
