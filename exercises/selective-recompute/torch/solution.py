import math

import torch
import torch.nn.functional as F

SQRT_HALF = math.sqrt(0.5)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class MLPRecomputingGelu(torch.autograd.Function):
    """Linear -> GELU -> Linear that keeps the pre-activation ``h`` for backward and
    rebuilds the GELU output from it, instead of keeping that output as well."""

    @staticmethod
    def forward(ctx, x, w1, b1, w2, b2):
        h = torch.addmm(b1, x, w1.t())  # the first product: worth keeping
        a = F.gelu(h)  # element-wise and as large as h: cheap to redo, so not kept
        # The inputs are saved as they are (no copy); the biases are not needed at all.
        ctx.save_for_backward(x, w1, w2, h)
        return torch.addmm(b2, a, w2.t())

    @staticmethod
    def backward(ctx, grad_y):
        x, w1, w2, h = ctx.saved_tensors
        # GELU(h) = h * Phi(h), where Phi is the standard normal CDF and phi its density,
        # so GELU'(h) = Phi(h) + h * phi(h). Both are element-wise on h.
        cdf = 0.5 * (1.0 + torch.erf(h * SQRT_HALF))
        pdf = torch.exp(-0.5 * h * h) * INV_SQRT_2PI
        a = h * cdf  # the GELU output, recomputed
        # The four products of the backward; none of them repeats one of the forward.
        grad_a = grad_y @ w2
        grad_h = grad_a * (cdf + h * pdf)
        grad_x = grad_h @ w1
        grad_w1 = grad_h.t() @ x
        grad_w2 = grad_y.t() @ a
        # A bias is added to every row, so its gradient is the sum over the batch.
        return grad_x, grad_w1, grad_h.sum(0), grad_w2, grad_y.sum(0)


def mlp_block(x, w1, b1, w2, b2):
    """``gelu(x @ w1.T + b1) @ w2.T + b2``, keeping ``x``, ``w1``, ``w2`` and ``h``."""
    return MLPRecomputingGelu.apply(x, w1, b1, w2, b2)
