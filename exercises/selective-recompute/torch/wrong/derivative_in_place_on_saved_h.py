"""Turns the saved h into gelu'(h) in place to save memory, so a second backward over the graph fails.

Breaks: autograd_grad_twice
"""

import math

import torch


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = x @ w1.t() + b1
        a = h * 0.5 * (1 + torch.erf(h / math.sqrt(2)))
        ctx.save_for_backward(x, w1, w2, h)
        return a @ w2.t() + b2

    @staticmethod
    def backward(ctx, g):
        x, w1, w2, h = ctx.saved_tensors
        cdf = 0.5 * (1 + torch.erf(h / math.sqrt(2)))
        pdf = torch.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
        a = h * cdf
        h.mul_(pdf).add_(cdf)  # h now holds gelu'(h): no new (batch, hidden) tensor
        grad_h = (g @ w2) * h
        return grad_h @ w1, grad_h.t() @ x, grad_h.sum(0), g.t() @ a, g.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
