"""Normal CDF from torch.special.ndtr, density as the exponential of the log-density."""

import math

import torch
import torch.nn.functional as F


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = x @ w1.mT + b1
        ctx.save_for_backward(x, w1, w2, h)
        return F.gelu(h) @ w2.mT + b2

    @staticmethod
    def backward(ctx, g):
        x, w1, w2, h = ctx.saved_tensors
        cdf = torch.special.ndtr(h)
        pdf = torch.exp(-0.5 * h * h - 0.5 * math.log(2 * math.pi))
        grad_h = (g @ w2) * (cdf + h * pdf)
        return grad_h @ w1, grad_h.mT @ x, grad_h.sum(0), g.mT @ (h * cdf), g.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
