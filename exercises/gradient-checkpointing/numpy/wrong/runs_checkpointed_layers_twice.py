"""Calls each checkpointed layer a second time to get the value it saves.

Breaks: exact_keys
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: np.copy(x)}
    h = x
    for i, layer in enumerate(layers):
        if i in checkpoint_indices:
            saved[i] = np.copy(layer(h))
        h = layer(h)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        h = layer(h)
    return h
