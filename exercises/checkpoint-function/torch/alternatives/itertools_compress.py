"""Splits and merges the arguments with itertools.compress and a mask, in helper functions."""

import itertools

import torch


def split(args):
    """(mask of tensor positions, the tensors, the plain values)."""
    mask = [torch.is_tensor(a) for a in args]
    tensors = list(itertools.compress(args, mask))
    plain = list(itertools.compress(args, [not m for m in mask]))
    return mask, tensors, plain


def merge(mask, tensors, plain):
    tensors, plain = iter(tensors), iter(plain)
    return [next(tensors) if is_tensor else next(plain) for is_tensor in mask]


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.mask, tensors, ctx.plain = split(args)
        ctx.save_for_backward(*tensors)
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        leaves = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        rng_now = torch.get_rng_state()
        torch.set_rng_state(ctx.rng_state)
        with torch.enable_grad():
            output = ctx.fn(*merge(ctx.mask, leaves, ctx.plain))
        torch.set_rng_state(rng_now)
        torch.autograd.backward(output, grad_output)
        gradients = merge(ctx.mask, [leaf.grad for leaf in leaves], [None] * len(ctx.plain))
        return (None, *gradients)


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
