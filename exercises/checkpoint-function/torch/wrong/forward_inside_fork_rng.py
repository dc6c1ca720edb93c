"""Runs fn inside torch.random.fork_rng in the forward pass too, so the caller's stream does not move past fn's draws.

Breaks: randomness
"""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        ctx.plain = [None if isinstance(a, torch.Tensor) else a for a in args]
        ctx.save_for_backward(*(args[i] for i in ctx.positions))
        with torch.random.fork_rng(devices=[]):
            return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        args = list(ctx.plain)
        for i, saved in zip(ctx.positions, ctx.saved_tensors):
            args[i] = saved.detach().requires_grad_(saved.requires_grad)
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        return (None, *(args[i].grad if i in ctx.positions else None for i in range(len(args))))


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
