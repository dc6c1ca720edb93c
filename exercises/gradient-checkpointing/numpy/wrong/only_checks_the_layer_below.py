"""Recompute starts from layer_idx - 1 when it is saved and from the input otherwise.

Breaks: nearest_checkpoint
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: np.copy(x)}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = np.copy(h)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = layer_idx - 1 if layer_idx - 1 in saved_activations else -1
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
