"""itertools.accumulate yields the activations one by one; the chosen ones are cloned."""

from itertools import accumulate

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    keep = {-1, *checkpoint_indices}
    saved = {}
    output = x
    with torch.no_grad():
        for i, a in enumerate(accumulate(layers, lambda a, f: f(a), initial=x), start=-1):
            if i in keep:
                saved[i] = a.clone()
            output = a
    return output, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations.keys() if k < layer_idx)  # noqa: SIM118
    with torch.enable_grad():
        *_, result = accumulate(
            layers[start + 1 : layer_idx + 1], lambda a, f: f(a), initial=saved_activations[start]
        )
    return result
