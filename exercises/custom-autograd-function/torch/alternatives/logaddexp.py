"""torch.logaddexp(x, 0) for the forward pass, 1 / (1 + exp(-x)) for the sigmoid."""

import torch


class Softplus(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.logaddexp(x, torch.zeros_like(x))

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # exp(-x) may be inf for very negative x: 1 / inf is 0, no nan.
        return grad_output / (1 + torch.exp(-x))


class STEClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        return x.clamp(min=low).clamp(max=high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.clone(), None, None


def softplus(x):
    return Softplus.apply(x)


def ste_clamp(x, low, high):
    return STEClamp.apply(x, low, high)
