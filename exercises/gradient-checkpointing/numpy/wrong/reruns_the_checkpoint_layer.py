"""Recompute also re-runs the layer that produced the starting checkpoint (off by one).

Breaks: nearest_checkpoint
"""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x.copy()}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = h.copy()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    for layer in layers[max(start, 0) : layer_idx + 1]:
        h = layer(h)
    return h
