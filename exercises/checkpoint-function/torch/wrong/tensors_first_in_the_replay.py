"""Rebuilds the replay's arguments as all tensors first, then the plain values, losing their positions.

Breaks: plain_arguments
"""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.plain = [a for a in args if not isinstance(a, torch.Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, torch.Tensor)))
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        tensors = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*tensors, *ctx.plain)
        torch.autograd.backward(output, grad_output)
        return (None, *(t.grad for t in tensors), *(None for _ in ctx.plain))


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
