"""In-place operations, but only on tensors it made itself (masked_fill_, div_)."""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1)
    scores.div_(math.sqrt(q.shape[-1]))
    if causal:
        n = scores.shape[-1]
        scores.masked_fill_(torch.ones(n, n).triu(1).bool(), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v)
