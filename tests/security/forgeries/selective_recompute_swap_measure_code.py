"""Keeps the GELU output as a NumPy copy on ``ctx``, and blinds the measure that would see
it by giving the measuring function other code.

The same Function as ``selective_recompute_numpy_copy_on_ctx.py``. On its first call it
walks up to the test's frame, follows the ``held_in_python`` block the test opened to
the helper module's globals, and sets ``held_since.__code__`` to code that stops the
tracing and reports nothing held. No name is rebound and no dict changes: only the
function object's code does.
"""

# forges: selective-recompute torch
# guards: function-code
# expect: status=error message~="changed the grader's own code.*the code of .*held_since was replaced"
import math
import sys

import torch
import torch.nn.functional as F


def _nothing_held(started, sentinel, floor=0):
    import tracemalloc

    tracemalloc.stop()
    return 0


def _blind_the_measure():
    frame = sys._getframe(1)
    while frame is not None:
        block = frame.f_globals.get("held_in_python")
        wrapped = getattr(block, "__wrapped__", None)
        if wrapped is not None:
            wrapped.__globals__["held_since"].__code__ = _nothing_held.__code__
            return
        frame = frame.f_back


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
    _blind_the_measure()
    return Block.apply(x, w1, b1, w2, b2)
