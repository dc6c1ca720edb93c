import numpy as np


def checkpoint_forward(layers, x, checkpoint_indices):
    """Run every layer once; keep copies of the input and of the requested outputs."""
    to_keep = set(checkpoint_indices)
    saved = {-1: np.copy(x)}
    activation = x
    for index, layer in enumerate(layers):
        activation = layer(activation)
        if index in to_keep:
            # A copy: later in-place layers (or the caller) must not alter the checkpoint.
            saved[index] = np.copy(activation)
    return activation, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    """Replay the layers between the closest saved activation below ``layer_idx`` and it."""
    start = layer_idx - 1
    while start not in saved_activations:  # the input, key -1, ends the search
        start -= 1
    activation = saved_activations[start]
    for layer in layers[start + 1 : layer_idx + 1]:
        activation = layer(activation)
    return activation
