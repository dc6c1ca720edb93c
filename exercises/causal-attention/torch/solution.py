import math

import torch


def attention(q, k, v, causal=False):
    """Scaled dot-product attention over any number of leading batch dimensions."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        size = scores.shape[-1]
        allowed = torch.ones(size, size, dtype=torch.bool).tril()
        scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v
