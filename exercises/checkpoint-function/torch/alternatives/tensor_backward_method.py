"""Calls output.backward(grad_output) and saves the generator state with torch.default_generator."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.generator_state = torch.default_generator.get_state()
        ctx.layout = tuple(torch.is_tensor(a) for a in args)
        ctx.others = tuple(a for a in args if not torch.is_tensor(a))
        ctx.save_for_backward(*(a for a in args if torch.is_tensor(a)))
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        tensors = iter([t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors])
        others = iter(ctx.others)
        args = [next(tensors) if is_tensor else next(others) for is_tensor in ctx.layout]
        generator = torch.default_generator
        caller_state = generator.get_state()
        generator.set_state(ctx.generator_state)
        try:
            with torch.enable_grad():
                output = ctx.fn(*args)
        finally:
            generator.set_state(caller_state)
        output.backward(grad_output)
        grads = [
            a.grad if is_tensor and a.requires_grad else None
            for a, is_tensor in zip(args, ctx.layout)
        ]
        return (None, *grads)


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
