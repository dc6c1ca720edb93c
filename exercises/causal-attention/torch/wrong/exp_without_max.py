"""Writes the softmax as exp / sum without subtracting the maximum: exp(1000) is inf.

Breaks: stable
"""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    e = scores.exp()
    return e / e.sum(dim=-1, keepdim=True) @ v
