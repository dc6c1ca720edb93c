"""Written for one tensor or a tuple: backward takes *grad_outputs, skips outputs without grad."""

import torch


class CheckpointFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.rng_state = torch.get_rng_state()
        ctx.spec = [("tensor", None) if torch.is_tensor(a) else ("value", a) for a in args]
        ctx.save_for_backward(*(a for a in args if torch.is_tensor(a)))
        with torch.no_grad():
            return fn(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        saved = iter(ctx.saved_tensors)
        args = []
        for kind, value in ctx.spec:
            if kind == "tensor":
                tensor = next(saved)
                args.append(tensor.detach().requires_grad_(tensor.requires_grad))
            else:
                args.append(value)
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(ctx.rng_state)
            with torch.enable_grad():
                outputs = ctx.fn(*args)
        if torch.is_tensor(outputs):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
        if pairs:
            torch.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        grads = [a.grad if torch.is_tensor(a) and a.requires_grad else None for a in args]
        return (None, *grads)


def checkpoint(fn, *args):
    return CheckpointFunction.apply(fn, *args)
