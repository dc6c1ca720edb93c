"""Reads ctx.needs_input_grad from index 1 for x, so each check looks at the next input.

Breaks: partial_grads
"""

import math

import torch
import torch.nn.functional as F


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = x @ w1.t() + b1
        ctx.save_for_backward(x, w1, w2, h)
        return F.gelu(h) @ w2.t() + b2

    @staticmethod
    def backward(ctx, g):
        x, w1, w2, h = ctx.saved_tensors
        cdf = 0.5 * (1 + torch.erf(h / math.sqrt(2)))
        pdf = torch.exp(-0.5 * h * h) / math.sqrt(2 * math.pi)
        grad_x = grad_w1 = grad_b1 = grad_w2 = None
        grad_h = (g @ w2) * (cdf + h * pdf)
        if ctx.needs_input_grad[1]:
            grad_x = grad_h @ w1
        if ctx.needs_input_grad[2]:
            grad_w1 = grad_h.t() @ x
        if ctx.needs_input_grad[3]:
            grad_b1 = grad_h.sum(0)
        if ctx.needs_input_grad[4]:
            grad_w2 = g.t() @ (h * cdf)
        return grad_x, grad_w1, grad_b1, grad_w2, g.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
