"""mlp_block is an instance of a small class whose __call__ applies a Function built in __init__."""

import math

import torch
import torch.nn.functional as F


def make_function():
    class _Fn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w1, b1, w2, b2):
            h = x.mm(w1.t()).add_(b1)  # add the bias in place into the fresh product
            ctx.save_for_backward(x, w1, w2, h)
            return F.gelu(h).mm(w2.t()).add_(b2)

        @staticmethod
        def backward(ctx, grad_y):
            x, w1, w2, h = ctx.saved_tensors
            cdf = torch.erf(h / math.sqrt(2)).add_(1).mul_(0.5)
            pdf = torch.exp(h * h * -0.5).div_(math.sqrt(2 * math.pi))
            a = h * cdf
            grad_h = grad_y.mm(w2).mul_(pdf.mul_(h).add_(cdf))  # in place on fresh tensors only
            return grad_h.mm(w1), grad_h.t().mm(x), grad_h.sum(0), grad_y.t().mm(a), grad_y.sum(0)

    return _Fn


class MLPBlock:
    def __init__(self):
        self.function = make_function()

    def __call__(self, x, w1, b1, w2, b2):
        return self.function.apply(x, w1, b1, w2, b2)


mlp_block = MLPBlock()
