"""Does not save the input under key -1.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = h.copy()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max([k for k in saved_activations if k < layer_idx], default=-1)
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
