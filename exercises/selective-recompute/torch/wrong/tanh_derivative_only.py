"""Exact GELU in the forward, but the derivative of the tanh approximation in backward.

Breaks: gradient_values
"""

import math

import torch
import torch.nn.functional as F

C = math.sqrt(2 / math.pi)


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = x @ w1.t() + b1
        ctx.save_for_backward(x, w1, w2, h)
        return F.gelu(h) @ w2.t() + b2

    @staticmethod
    def backward(ctx, g):
        x, w1, w2, h = ctx.saved_tensors
        a = F.gelu(h)
        t = torch.tanh(C * (h + 0.044715 * h**3))
        slope = 0.5 * (1 + t) + 0.5 * h * (1 - t * t) * C * (1 + 3 * 0.044715 * h * h)
        grad_h = (g @ w2) * slope
        return grad_h @ w1, grad_h.t() @ x, grad_h.sum(0), g.t() @ a, g.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
