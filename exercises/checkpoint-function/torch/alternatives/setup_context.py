"""The split API: forward without ctx, setup_context, random state taken in checkpoint()."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(fn, rng_state, *args):
        return fn(*args)

    @staticmethod
    def setup_context(ctx, inputs, output):
        fn, rng_state, *args = inputs
        ctx.fn = fn
        ctx.rng_state = rng_state  # a tensor, but not one of fn's arguments: no saving
        ctx.slots = [None if isinstance(a, torch.Tensor) else a for a in args]
        ctx.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_slots))

    @staticmethod
    def backward(ctx, grad_output):
        args = list(ctx.slots)
        for i, tensor in zip(ctx.tensor_slots, ctx.saved_tensors):
            args[i] = tensor.detach().requires_grad_(tensor.requires_grad)
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.fn(*args)
        torch.autograd.backward(output, grad_output)
        grads = [None] * len(args)
        for i in ctx.tensor_slots:
            grads[i] = args[i].grad
        return (None, None, *grads)  # fn and the random state get nothing


def checkpoint(fn, *args):
    # Taken here, before apply runs fn: the state fn starts from.
    return CheckpointFunction.apply(fn, torch.get_rng_state(), *args)
