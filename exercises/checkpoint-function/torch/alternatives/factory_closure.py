"""A factory builds a Function class per call, holding fn and the plain values in a closure."""

import torch


def make_checkpoint_function(fn, template, rng_state):
    """A Function whose inputs are only the tensors; ``template`` holds the plain values
    and None where each tensor goes."""

    def fill(tensors):
        tensors = iter(tensors)
        return [next(tensors) if slot is None else slot[0] for slot in template]

    class Checkpoint(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *tensors):
            ctx.save_for_backward(*tensors)
            return fn(*fill(tensors))

        @staticmethod
        def backward(ctx, grad_output):
            leaves = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
            outer = torch.get_rng_state()
            torch.set_rng_state(rng_state)
            try:
                with torch.enable_grad():
                    output = fn(*fill(leaves))
            finally:
                torch.set_rng_state(outer)
            torch.autograd.backward(output, grad_output)
            return tuple(leaf.grad if leaf.requires_grad else None for leaf in leaves)

    return Checkpoint


def checkpoint(fn, *args):
    # Plain values are wrapped in a 1-tuple, so that a plain None is not taken for a slot.
    template = [None if isinstance(a, torch.Tensor) else (a,) for a in args]
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    function = make_checkpoint_function(fn, template, torch.get_rng_state())
    return function.apply(*tensors)
