"""bisect_left on the sorted keys of the saved dict to find the start."""

from bisect import bisect_left

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    keep = frozenset(checkpoint_indices)
    saved = {-1: np.copy(x)}
    a = x
    for i, layer in enumerate(layers):
        a = layer(a)
        if i in keep:
            saved[i] = np.copy(a)
    return a, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    keys = sorted(saved_activations)
    start = keys[bisect_left(keys, layer_idx) - 1]
    a = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        a = layer(a)
    return a
