"""ste_clamp clamps x in place (clamp_) and returns it, changing the caller's tensor.

Breaks: input_unchanged
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
        return x.clamp_(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


def softplus(x):
    return Softplus.apply(x)


def ste_clamp(x, low, high):
    return STEClamp.apply(x, low, high)
