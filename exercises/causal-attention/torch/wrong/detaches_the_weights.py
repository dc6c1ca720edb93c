"""Detaches the attention weights: v still gets its gradient, q and k get none.

Breaks: gradients
"""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        scores = scores.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    weights = torch.softmax(scores, dim=-1).detach()
    return weights @ v
