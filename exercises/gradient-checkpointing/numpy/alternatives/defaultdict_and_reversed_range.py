"""A collections.defaultdict for saved, and a reversed range to look for the start."""

from collections import defaultdict

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = defaultdict(lambda: None)
    saved[-1] = np.array(x, copy=True)
    act = x
    for idx, layer in enumerate(layers):
        act = layer(act)
        if idx in checkpoint_indices:
            saved[idx] = np.array(act, copy=True)
    return act, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = next(k for k in reversed(range(-1, layer_idx)) if k in saved_activations)
    act = saved_activations[start]
    for idx in range(start + 1, layer_idx + 1):
        act = layers[idx](act)
    return act
