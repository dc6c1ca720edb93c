"""An OrderedDict for saved, copy.deepcopy for copies, the start found by sorted(reverse=True)."""

import copy
from collections import OrderedDict


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = OrderedDict()
    saved[-1] = copy.deepcopy(x)
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = copy.deepcopy(h)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    for start in sorted(saved_activations, reverse=True):
        if start < layer_idx:
            break
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
