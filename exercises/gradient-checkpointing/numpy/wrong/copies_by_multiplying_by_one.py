"""Saved copies are made with `a * 1.0`: a new array, right for float inputs, but an
integer or bool activation comes back as float64.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x * 1.0}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = h * 1.0
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = np.copy(saved_activations[start])
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
