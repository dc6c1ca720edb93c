"""Walks the sorted checkpoint list with a pointer, which a repeated index stalls.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    wanted = sorted(checkpoint_indices)
    saved = {-1: np.copy(x)}
    pointer = 0
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if pointer < len(wanted) and wanted[pointer] == i:
            saved[i] = np.copy(h)
            pointer += 1
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
