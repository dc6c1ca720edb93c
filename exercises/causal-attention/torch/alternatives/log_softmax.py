"""exp of torch.log_softmax, with the mask built from torch.tril_indices."""

import math

import torch


def attention(q, k, v, causal=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = scores.shape[-1]
        allowed = torch.zeros(n, n, dtype=torch.bool)
        rows, cols = torch.tril_indices(n, n)
        allowed[rows, cols] = True
        scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.log_softmax(scores, dim=-1).exp() @ v
