"""A plain forward whose output hook replays each segment, last first, under no_grad.

No harness object is touched: the layers really run in the order the tests record
during backward, but nothing is checkpointed, so autograd keeps every activation.
"""

# forges: checkpointing-layer-stack torch
# guards: kept-observation graph-observation
# expect: status=fail message~="tests passed" test_message~="bytes autograd keeps for backward outside checkpointed segments"
import torch


def forward_with_checkpointing(layers, x, segment_size):
    inputs, rng = [], {}
    starts = list(range(0, len(layers), segment_size))
    h = x
    for i, layer in enumerate(layers):
        if i in starts:
            rng[i] = torch.get_rng_state()  # so that a replay draws the same dropout masks
        inputs.append(h.detach())
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
