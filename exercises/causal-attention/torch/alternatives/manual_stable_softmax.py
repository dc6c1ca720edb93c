"""A softmax written out: subtract the row maximum (amax), exp, divide by the sum."""

import math

import torch


def attention(q, k, v, causal=False):
    scores = torch.matmul(q, k.mT) / math.sqrt(q.size(-1))
    if causal:
        n = scores.size(-1)
        future = torch.arange(n).unsqueeze(0) > torch.arange(n).unsqueeze(1)
        scores = scores.masked_fill(future, -math.inf)
    shifted = scores - scores.amax(dim=-1, keepdim=True)
    e = torch.exp(shifted)
    return (e / e.sum(dim=-1, keepdim=True)) @ v
