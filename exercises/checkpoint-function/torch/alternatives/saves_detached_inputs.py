"""Saves detached views of the tensor arguments; requires_grad from ctx.needs_input_grad."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.tensor_at = [isinstance(a, torch.Tensor) for a in args]
        ctx.values = [None if t else a for a, t in zip(args, ctx.tensor_at)]
        # Detached views share the arguments' storage: no extra memory, no graph.
        ctx.save_for_backward(*[a.detach() for a, t in zip(args, ctx.tensor_at) if t])
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        wants = ctx.needs_input_grad[1:]
        saved = list(ctx.saved_tensors)
        args = list(ctx.values)
        for i, is_tensor in enumerate(ctx.tensor_at):
            if is_tensor:
                args[i] = saved.pop(0).requires_grad_(wants[i])
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        return (None, *[args[i].grad if wants[i] else None for i in range(len(args))])


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
