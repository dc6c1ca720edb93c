"""Adds a mask of -inf above the diagonal (torch.full(...).triu(1)) in the scores' dtype."""

import math

import torch


def attention(q, k, v, causal=False):
    scale = 1 / math.sqrt(q.shape[-1])
    scores = q @ k.transpose(-1, -2) * scale
    if causal:
        n = q.shape[-2]
        scores = scores + torch.full((n, n), float("-inf"), dtype=scores.dtype).triu(1)
    return scores.softmax(-1) @ v
