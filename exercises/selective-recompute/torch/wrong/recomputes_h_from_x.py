"""Saves b1 instead of h and recomputes h = x @ w1.T + b1 in backward: a forward product runs again.

Breaks: memory_kept
"""

import math

import torch
import torch.nn.functional as F


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = x @ w1.t() + b1
        ctx.save_for_backward(x, w1, b1, w2)
        return F.gelu(h) @ w2.t() + b2

    @staticmethod
    def backward(ctx, g):
        x, w1, b1, w2 = ctx.saved_tensors
        h = x @ w1.t() + b1
        cdf = 0.5 * (1 + torch.erf(h / math.sqrt(2)))
        pdf = torch.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
        a = h * cdf
        grad_h = (g @ w2) * (cdf + h * pdf)
        return grad_h @ w1, grad_h.t() @ x, grad_h.sum(0), g.t() @ a, g.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
