"""A closure puts the plain values back, so the Function's inputs are only tensors."""

import torch


class TensorCheckpoint(torch.autograd.Function):
    """``apply(run, *tensors)``: every input after ``run`` is a tensor."""

    @staticmethod
    def forward(ctx, run, *tensors):
        ctx.run = run
        ctx.rng_state = torch.get_rng_state()
        ctx.save_for_backward(*tensors)
        return run(*tensors)

    @staticmethod
    def backward(ctx, grad_output):
        leaves = [t.detach().requires_grad_(t.requires_grad) for t in ctx.saved_tensors]
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                output = ctx.run(*leaves)
        torch.autograd.backward(output, grad_output)
        return None, *[leaf.grad for leaf in leaves]


def checkpoint(fn, *args):
    tensor_positions = [i for i, a in enumerate(args) if torch.is_tensor(a)]
    plain = [None if torch.is_tensor(a) else a for a in args]  # the closure keeps no tensor

    def run(*tensors):
        full = list(plain)
        for i, t in zip(tensor_positions, tensors):
            full[i] = t
        return fn(*full)

    return TensorCheckpoint.apply(run, *(args[i] for i in tensor_positions))
