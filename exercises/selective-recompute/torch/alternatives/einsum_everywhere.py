"""Every product written with torch.einsum, forward and backward."""

import math

import torch
import torch.nn.functional as F


class EinsumMLP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = torch.einsum("bd,hd->bh", x, w1) + b1
        y = torch.einsum("bh,oh->bo", F.gelu(h), w2) + b2
        ctx.save_for_backward(x, w1, w2, h)
        return y

    @staticmethod
    def backward(ctx, g):
        x, w1, w2, h = ctx.saved_tensors
        cdf = 0.5 * (1 + torch.erf(h * (1 / math.sqrt(2))))
        pdf = torch.exp(-0.5 * h.square()) / math.sqrt(2 * math.pi)
        a = F.gelu(h)
        grad_h = torch.einsum("bo,oh->bh", g, w2) * (cdf + h * pdf)
        return (
            torch.einsum("bh,hd->bd", grad_h, w1),
            torch.einsum("bh,bd->hd", grad_h, x),
            torch.einsum("bh->h", grad_h),
            torch.einsum("bo,bh->oh", g, a),
            torch.einsum("bo->o", g),
        )


def mlp_block(x, w1, b1, w2, b2):
    return EinsumMLP.apply(x, w1, b1, w2, b2)
