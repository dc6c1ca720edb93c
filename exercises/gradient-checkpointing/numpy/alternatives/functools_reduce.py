"""functools.reduce over the layers, in the forward and in the recompute."""

from functools import reduce

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    keep = set(checkpoint_indices)
    saved = {-1: np.copy(x)}

    def step(a, item):
        i, layer = item
        a = layer(a)
        if i in keep:
            saved[i] = np.copy(a)
        return a

    output = reduce(step, enumerate(layers), x)
    return output, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(filter(lambda k: k < layer_idx, saved_activations))
    return reduce(lambda a, f: f(a), layers[start + 1 : layer_idx + 1], saved_activations[start])
