"""Plain autograd under an identity pair of saved-tensor hooks of its own, with a replay
of ``fn`` for show in an output hook.

Saved-tensor hooks are a stack, and the innermost pair alone packs what autograd saves:
``fn`` records its whole graph under the learner's pair, hidden from the grader's hooks,
while a no-op Function saves the tensor arguments outside it, so the grader's hooks see
exactly them. Backward is plain autograd; the replay under ``no_grad`` only makes the
modules of ``fn`` run once more, on the same values, ``requires_grad`` flags and random
numbers.
"""

# forges: checkpoint-function torch
# guards: graph-observation
# expect: status=fail message~="tests passed" test_message~="bytes autograd keeps for backward"
import torch


class Keep(torch.autograd.Function):
    """Saves the tensor arguments for show, as a checkpoint would."""

    @staticmethod
    def forward(ctx, dummy, *tensors):
        ctx.save_for_backward(*tensors)
        return dummy.new_empty(0)

    @staticmethod
    def backward(ctx, grad):
        return (None,) * (1 + len(ctx.saved_tensors))


def checkpoint(fn, *args):
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    Keep.apply(torch.empty(0, requires_grad=True), *tensors)
    if not any(t.requires_grad for t in tensors):
        with torch.no_grad():
            return fn(*args)
    state = torch.get_rng_state()
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        out = fn(*args)

    def replay(grad):
        with torch.random.fork_rng(), torch.no_grad():
            torch.set_rng_state(state)
            rebuilt = (
                a.detach().requires_grad_(a.requires_grad) if isinstance(a, torch.Tensor) else a
                for a in args
            )
            fn(*rebuilt)
        return grad

    out.register_hook(replay)
    return out
