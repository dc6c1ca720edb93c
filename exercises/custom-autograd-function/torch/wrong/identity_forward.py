"""Takes "straight through" for the forward pass too: ste_clamp returns x unclamped.

Breaks: ste_clamp_values
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
        return x.clone()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


def softplus(x):
    return Softplus.apply(x)


def ste_clamp(x, low, high):
    return STEClamp.apply(x, low, high)
