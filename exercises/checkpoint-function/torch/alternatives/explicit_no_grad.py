"""Explicit torch.no_grad() and torch.set_grad_enabled(True); random state restored by hand."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.forward_rng = torch.get_rng_state()
        ctx.kinds = ["tensor" if isinstance(a, torch.Tensor) else "plain" for a in args]
        ctx.plain_values = [a for a in args if not isinstance(a, torch.Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, torch.Tensor)])
        with torch.no_grad():
            output = fn(*args)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        tensors = [t.detach() for t in ctx.saved_tensors]
        for leaf, original in zip(tensors, ctx.saved_tensors):
            leaf.requires_grad = original.requires_grad
        tensor_iter, plain_iter = iter(tensors), iter(ctx.plain_values)
        args = [next(tensor_iter) if k == "tensor" else next(plain_iter) for k in ctx.kinds]

        backward_rng = torch.get_rng_state()
        torch.set_rng_state(ctx.forward_rng)
        with torch.set_grad_enabled(True):
            output = ctx.fn(*args)
        torch.set_rng_state(backward_rng)

        torch.autograd.backward([output], [grad_output])
        grads = []
        for kind, arg in zip(ctx.kinds, args):
            grads.append(arg.grad if kind == "tensor" and arg.requires_grad else None)
        return None, *grads


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
