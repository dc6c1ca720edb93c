"""Saves only the tensors that require grad and keeps the others as ctx attributes, hiding them from autograd.

Breaks: forward_pass
"""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.args = [
            a if not (isinstance(a, torch.Tensor) and a.requires_grad) else None for a in args
        ]
        ctx.positions = [
            i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.requires_grad
        ]
        ctx.save_for_backward(*(args[i] for i in ctx.positions))
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        args = list(ctx.args)
        for i, saved in zip(ctx.positions, ctx.saved_tensors):
            args[i] = saved.detach().requires_grad_()
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        return (None, *(args[i].grad if i in ctx.positions else None for i in range(len(args))))


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
