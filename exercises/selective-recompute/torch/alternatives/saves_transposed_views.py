"""Saves w1.t() and w2.t() (views, no copy) and uses torch.distributions.Normal for Phi and phi."""

import torch
from torch.distributions import Normal


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        w1_t, w2_t = w1.t(), w2.t()
        h = x @ w1_t + b1
        normal = Normal(torch.zeros((), dtype=h.dtype), torch.ones((), dtype=h.dtype))
        a = h * normal.cdf(h)
        ctx.save_for_backward(x, w1_t, w2_t, h)
        return a @ w2_t + b2

    @staticmethod
    def backward(ctx, g):
        x, w1_t, w2_t, h = ctx.saved_tensors
        normal = Normal(torch.zeros((), dtype=h.dtype), torch.ones((), dtype=h.dtype))
        cdf = normal.cdf(h)
        pdf = normal.log_prob(h).exp()
        grad_h = (g @ w2_t.t()) * (cdf + h * pdf)
        grad_x = grad_h @ w1_t.t()
        grad_w1 = (x.t() @ grad_h).t()
        grad_w2 = ((h * cdf).t() @ g).t()
        return grad_x, grad_w1, grad_h.sum(0), grad_w2, g.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
