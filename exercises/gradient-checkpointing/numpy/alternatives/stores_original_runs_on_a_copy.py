"""Stores each checkpoint's own array and runs the rest of the network on a fresh copy."""


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x.copy()}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = h  # nobody else holds this array once h moves on to the copy
            h = h.copy()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    below = [k for k in saved_activations.keys() if k < layer_idx]  # noqa: SIM118
    below.sort()
    h = saved_activations[below[-1]]
    for layer in layers[below[-1] + 1 : layer_idx + 1]:
        h = layer(h)
    return h
