"""Replays inside torch.random.fork_rng, which hands the caller its random state back."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.is_tensor = [isinstance(a, torch.Tensor) for a in args]
        ctx.plain = [None if t else a for a, t in zip(args, ctx.is_tensor)]
        ctx.save_for_backward(*[a for a, t in zip(args, ctx.is_tensor) if t])
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        saved = iter(ctx.saved_tensors)
        args = []
        for is_tensor, value in zip(ctx.is_tensor, ctx.plain):
            if is_tensor:
                tensor = next(saved)
                args.append(tensor.detach().requires_grad_(tensor.requires_grad))
            else:
                args.append(value)
        with torch.random.fork_rng():
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        grads = [a.grad if t else None for a, t in zip(args, ctx.is_tensor)]
        return (None, *grads)


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
