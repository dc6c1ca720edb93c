"""Returns the output scaled by 1 + 1e-6 (a stray epsilon): within float32's tolerance, but
a million times the relative 1e-9 the statement states for float64.

Breaks: output_values
"""

import math

import torch

CDF_SCALE = 1.0 / math.sqrt(2.0)
PDF_SCALE = 1.0 / math.sqrt(2.0 * math.pi)
EPSILON = 1e-6


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = x @ w1.T + b1
        a = h * 0.5 * (1.0 + torch.erf(h * CDF_SCALE))
        ctx.save_for_backward(x, w1, w2, h)
        return (a @ w2.T + b2) * (1.0 + EPSILON)

    @staticmethod
    def backward(ctx, grad_y):
        x, w1, w2, h = ctx.saved_tensors
        cdf = 0.5 * (1.0 + torch.erf(h * CDF_SCALE))
        a = h * cdf
        grad_h = (grad_y @ w2) * (cdf + h * torch.exp(-0.5 * h * h) * PDF_SCALE)
        return grad_h @ w1, grad_h.T @ x, grad_h.sum(0), grad_y.T @ a, grad_y.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
