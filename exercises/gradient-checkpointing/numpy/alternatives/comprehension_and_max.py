"""A max over the filtered keys, from the checkpoint list, with default=-1."""

import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    wanted = set(checkpoint_indices)
    saved = {-1: np.copy(x)}
    out = x
    for i, f in enumerate(layers):
        out = f(out)
        if i in wanted:
            saved[i] = np.copy(out)
    return out, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max([c for c in checkpoint_indices if c < layer_idx], default=-1)
    out = saved_activations[start]
    for f in [layers[i] for i in range(start + 1, layer_idx + 1)]:
        out = f(out)
    return out
