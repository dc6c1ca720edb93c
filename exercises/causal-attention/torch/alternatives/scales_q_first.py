"""Scales q before the product and masks with a large finite negative number."""

import torch


def attention(q, k, v, causal=False):
    q_scaled = q / q.shape[-1] ** 0.5
    scores = q_scaled @ k.transpose(-2, -1)
    if causal:
        n = scores.shape[-1]
        upper = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(upper, -1e9)
    return torch.softmax(scores, dim=-1) @ v
