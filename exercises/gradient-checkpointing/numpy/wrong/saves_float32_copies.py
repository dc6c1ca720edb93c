"""Saved copies are cast to float32 (`a.astype(np.float32)`) instead of keeping the dtype.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x.astype(np.float32)}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = h.astype(np.float32)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
