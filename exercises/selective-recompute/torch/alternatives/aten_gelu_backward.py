"""GELU's derivative from PyTorch's own kernel, torch.ops.aten.gelu_backward."""

import torch
import torch.nn.functional as F


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = torch.addmm(b1, x, w1.t())
        ctx.save_for_backward(x, w1, w2, h)
        return torch.addmm(b2, F.gelu(h), w2.t())

    @staticmethod
    def backward(ctx, grad_y):
        x, w1, w2, h = ctx.saved_tensors
        grad_h = torch.ops.aten.gelu_backward(grad_y.mm(w2), h)
        return (
            grad_h.mm(w1),
            grad_h.t().mm(x),
            grad_h.sum(0),
            grad_y.t().mm(F.gelu(h)),
            grad_y.sum(0),
        )


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
