"""ste_clamp's backward zeroes the gradient where x was clamped, as torch.clamp does:
not straight through.

Breaks: gradients
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
        return grad_output * torch.sigmoid(x)


class STEClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        ctx.save_for_backward(x)
        ctx.low, ctx.high = low, high
        return torch.clamp(x, low, high)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inside = (x >= ctx.low) & (x <= ctx.high)
        return grad_output * inside, None, None


def softplus(x):
    return Softplus.apply(x)


def ste_clamp(x, low, high):
    return STEClamp.apply(x, low, high)
