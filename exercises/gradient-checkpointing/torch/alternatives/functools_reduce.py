"""functools.reduce over the layers, in the forward and in the recompute."""

from functools import reduce

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    keep = set(checkpoint_indices)
    saved = {}

    def step(a, item):
        i, layer = item
        a = layer(a)
        if i in keep:
            saved[i] = a.clone()
        return a

    with torch.no_grad():
        saved[-1] = x.clone()
        output = reduce(step, enumerate(layers), x)
    return output, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(filter(lambda k: k < layer_idx, saved_activations))
    replay = layers[start + 1 : layer_idx + 1]
    with torch.enable_grad():
        return reduce(lambda a, f: f(a), replay, saved_activations[start])
