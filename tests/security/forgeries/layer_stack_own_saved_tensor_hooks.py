"""A plain forward that hides its activations from the grader's saved-tensor hooks under
an identity pair of its own, and replays each segment, last first, in an output hook.

Saved-tensor hooks are a stack, and the innermost pair alone packs what autograd saves.
The whole plain forward runs under the learner's pair; only a no-op Function saves each
segment's input outside it, so the grader's hooks see one tensor per segment, as with
checkpointing. Nothing is checkpointed: autograd keeps every activation.
"""

# forges: checkpointing-layer-stack torch
# guards: graph-observation
# expect: status=fail message~="tests passed" test_message~="bytes autograd keeps for backward outside checkpointed segments"
import torch


class Keep(torch.autograd.Function):
    """Saves its input for show, as checkpoint saves a segment's input."""

    @staticmethod
    def forward(ctx, dummy, h):
        ctx.save_for_backward(h)
        return h.new_empty(0)

    @staticmethod
    def backward(ctx, grad):
        return None, None


def forward_with_checkpointing(layers, x, segment_size):
    inputs, rng = [], {}
    starts = list(range(0, len(layers), segment_size))
    h = x
    for i, layer in enumerate(layers):
        if i in starts:
            rng[i] = torch.get_rng_state()  # so that a replay draws the same dropout masks
            Keep.apply(torch.empty(0, requires_grad=True), h)  # saved even if h needs no grad
        inputs.append(h.detach())
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            h = layer(h)

    def replay(grad):
        now = torch.get_rng_state()
        with torch.no_grad():
            for start in reversed(starts):
                torch.set_rng_state(rng[start])
                z = inputs[start]
                for layer in layers[start : start + segment_size]:
                    z = layer(z)
        torch.set_rng_state(now)
        return grad

    if h.requires_grad:
        h.register_hook(replay)
    return h
