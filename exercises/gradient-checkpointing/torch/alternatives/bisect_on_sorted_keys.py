"""bisect_left on the sorted keys of the saved dict to find the start."""

from bisect import bisect_left

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    wanted = frozenset(checkpoint_indices)
    with torch.no_grad():
        saved = {-1: x.clone()}
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i in wanted:
                saved[i] = h.clone()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    keys = sorted(saved_activations)
    start = keys[bisect_left(keys, layer_idx) - 1]
    h = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
