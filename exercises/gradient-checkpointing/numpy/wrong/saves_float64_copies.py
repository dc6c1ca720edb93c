"""Saved copies are made with `np.array(a, dtype=float)`, which turns float32 into float64.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: np.array(x, dtype=float)}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = np.array(h, dtype=float)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
