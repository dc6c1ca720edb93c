"""Backward computes sigmoid as exp(x) / (1 + exp(x)), which is inf / inf = nan for large x.

Breaks: stable_gradients
"""

import torch


class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        e = torch.exp(x)
        return grad_output * e / (1 + e)


class STEClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        return torch.clamp(x, low, high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


def softplus(x):
    return Softplus.apply(x)


def ste_clamp(x, low, high):
    return STEClamp.apply(x, low, high)
