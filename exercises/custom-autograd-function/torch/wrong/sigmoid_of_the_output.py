"""Saves the output y and returns grad_output * sigmoid(y): the sigmoid of the wrong tensor.

Breaks: gradcheck
"""

import torch


class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.clamp(x, min=0) + torch.log1p(torch.exp(-torch.abs(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * torch.sigmoid(y)


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
