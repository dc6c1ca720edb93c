"""The replay makes every floating-point tensor require grad, whatever the original
argument did: a float tensor that needed no gradient reaches fn requiring one.

Breaks: plain_arguments
"""

import torch


class CheckpointFunction(torch.autograd.Function):
    """Runs ``fn`` without a graph in the forward pass and replays it during backward."""

    @staticmethod
    def forward(ctx, fn, *args):
        # Autograd is off inside Function.forward: fn records no graph, so none of the
        # tensors it creates along the way stays alive after this call.
        ctx.fn = fn
        # The snapshot is taken before fn draws anything, so that the replay draws the
        # same numbers (the same dropout masks).
        ctx.rng_state = torch.get_rng_state()
        ctx.tensor_positions = [i for i, arg in enumerate(args) if isinstance(arg, torch.Tensor)]
        # Plain values stay in ctx as they are; tensors go through save_for_backward,
        # the only thing autograd keeps for this node.
        ctx.plain_args = [None if isinstance(arg, torch.Tensor) else arg for arg in args]
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_positions))
        return fn(*args)

    @staticmethod
    def backward(ctx, grad_output):
        args = list(ctx.plain_args)
        for position, saved in zip(ctx.tensor_positions, ctx.saved_tensors):
            # A fresh leaf with the same values: the replay's graph starts here and does
            # not run into whatever graph produced the original argument.
            args[position] = saved.detach().requires_grad_(saved.is_floating_point())

        # fork_rng puts the caller's random state back when the block ends: its stream
        # goes on as if the replay had drawn nothing.
        with torch.random.fork_rng():
            torch.set_rng_state(ctx.rng_state)
            # Backward runs with autograd off; the replay needs a graph.
            with torch.enable_grad():
                output = ctx.fn(*args)

        # Fills .grad of the rebuilt arguments and of every parameter fn used.
        torch.autograd.backward(output, grad_output)

        grads = [None] * len(args)
        for position in ctx.tensor_positions:
            grads[position] = args[position].grad
        return (None, *grads)  # nothing for fn, then one entry per argument


def checkpoint(fn, *args):
    """Run ``fn(*args)`` keeping only the tensor arguments; replay it during backward."""
    return CheckpointFunction.apply(fn, *args)
