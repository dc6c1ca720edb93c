import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    """Run every layer once with autograd off; keep clones of the input and chosen outputs."""
    to_keep = set(checkpoint_indices)
    with torch.no_grad():
        saved = {-1: x.clone()}
        activation = x
        for index, layer in enumerate(layers):
            activation = layer(activation)
            if index in to_keep:
                # A clone: later in-place layers (or the caller) must not alter it.
                saved[index] = activation.clone()
    return activation, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    """Replay, with autograd on, the layers between the closest saved activation and it."""
    start = layer_idx - 1
    while start not in saved_activations:  # the input, key -1, ends the search
        start -= 1
    # No detach: gradients must be able to reach the starting tensor when it needs them.
    activation = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            activation = layer(activation)
    return activation
