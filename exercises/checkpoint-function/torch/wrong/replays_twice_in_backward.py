"""Replays fn once to rebuild the graph and once more to recompute the output it backpropagates from.

Breaks: backward_pass
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
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        args = list(ctx.plain)
        for i, saved in zip(ctx.positions, ctx.saved_tensors):
            args[i] = saved.detach().requires_grad_(saved.requires_grad)
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.no_grad():
                ctx.fn(*args)  # warm-up replay to check the values
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        return (None, *(args[i].grad if i in ctx.positions else None for i in range(len(args))))


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
