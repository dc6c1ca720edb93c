"""Recompute takes the last key below layer_idx in the dict's order, as if it were sorted.

Breaks: unsorted_and_repeated
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
    start = -1
    for k in saved_activations:
        if k < layer_idx:
            start = k
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
