"""Reads ctx.needs_input_grad to decide which rebuilt tensors require grad and get a gradient."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.is_tensor = [torch.is_tensor(a) for a in args]
        ctx.args = [None if t else a for a, t in zip(args, ctx.is_tensor)]
        ctx.save_for_backward(*filter(torch.is_tensor, args))
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        needs = ctx.needs_input_grad[1:]  # entry 0 is fn
        saved = list(ctx.saved_tensors)
        args = []
        for i, arg in enumerate(ctx.args):
            if ctx.is_tensor[i]:
                args.append(saved.pop(0).detach().requires_grad_(needs[i]))
            else:
                args.append(arg)
        state = torch.get_rng_state()
        torch.set_rng_state(ctx.rng_state)
        try:
            with torch.enable_grad():
                output = ctx.fn(*args)
        finally:
            torch.set_rng_state(state)
        torch.autograd.backward(output, grad_output)
        return (None, *(a.grad if needs[i] else None for i, a in enumerate(args)))


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
