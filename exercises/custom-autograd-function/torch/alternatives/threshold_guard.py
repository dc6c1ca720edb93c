"""log1p(exp(x)) below a threshold and x itself above it, where exp(-x) is below rounding."""

import torch


class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        safe = torch.clamp(x, max=40.0)  # exp(40) is finite in float32
        return torch.where(x > 40.0, x, torch.log1p(torch.exp(safe)))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (1.0 / (1.0 + torch.exp(-x)))


class STEClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        out = x.clone()
        out[out < low] = low
        out[out > high] = high
        return out

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


def softplus(x):
    return Softplus.apply(x)


def ste_clamp(x, low, high):
    return STEClamp.apply(x, low, high)
