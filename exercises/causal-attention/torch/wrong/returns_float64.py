"""Computes in float64 for safety and forgets to cast back: float32 inputs give float64.

Breaks: dtype
"""

import math

import torch


def attention(q, k, v, causal=False):
    q, k, v = q.double(), k.double(), v.double()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
