"""Keeps the GELU output as a NumPy copy on ``ctx``, out of sight of a measure that
watches torch storages only.

The Function saves exactly ``x``, ``w1``, ``w2`` and ``h`` with ``save_for_backward`` and
keeps a NumPy copy of ``a = gelu(h)`` as an attribute of ``ctx``: backward reads it back
instead of recomputing the GELU, which the exercise forbids. The copy is NumPy's memory,
not a torch storage: neither saved-tensor hooks nor a dispatch mode sees it.
"""

# forges: selective-recompute torch
# guards: python-memory
# expect: status=fail message~="tests passed" test_message~="bytes held outside torch, in NumPy arrays or Python objects"
import math

import torch
import torch.nn.functional as F


class Block(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = torch.addmm(b1, x, w1.t())
        a = F.gelu(h)
        ctx.save_for_backward(x, w1, w2, h)
        ctx.a = a.numpy().copy()
        return torch.addmm(b2, a, w2.t())

    @staticmethod
    def backward(ctx, grad_y):
        x, w1, w2, h = ctx.saved_tensors
        a = torch.from_numpy(ctx.a)
        cdf = 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
        pdf = torch.exp(-0.5 * h * h) / math.sqrt(2.0 * math.pi)
        grad_h = (grad_y @ w2) * (cdf + h * pdf)
        return grad_h @ w1, grad_h.t() @ x, grad_h.sum(0), grad_y.t() @ a, grad_y.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    return Block.apply(x, w1, b1, w2, b2)
