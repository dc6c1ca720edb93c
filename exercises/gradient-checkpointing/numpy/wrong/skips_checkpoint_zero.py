"""Looks the index up with `if wanted.get(i):`, so checkpoint 0, being falsy, is never saved.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    wanted = {c: c for c in checkpoint_indices}
    saved = {-1: np.copy(x)}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if wanted.get(i):
            saved[i] = np.copy(h)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
