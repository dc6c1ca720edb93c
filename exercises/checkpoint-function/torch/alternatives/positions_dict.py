"""Keeps the plain values in a dict {position: value} and the tensor positions in a list."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.count = len(args)
        ctx.rng_state = torch.get_rng_state()
        ctx.plain = {}
        tensors, positions = [], []
        for i, arg in enumerate(args):
            if isinstance(arg, torch.Tensor):
                tensors.append(arg)
                positions.append(i)
            else:
                ctx.plain[i] = arg
        ctx.positions = positions
        ctx.save_for_backward(*tensors)
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        leaves = {
            i: t.detach().requires_grad_(t.requires_grad)
            for i, t in zip(ctx.positions, ctx.saved_tensors)
        }
        args = [leaves[i] if i in leaves else ctx.plain[i] for i in range(ctx.count)]
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        return (None, *(leaves[i].grad if i in leaves else None for i in range(ctx.count)))


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
