"""x.detach().clone() for every saved tensor under no_grad, the start from a max with default."""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    with torch.no_grad():
        saved = {-1: x.detach().clone()}
        a = x
        for idx, layer in enumerate(layers):
            a = layer(a)
            if idx in checkpoint_indices:
                saved[idx] = a.detach().clone()
    return a, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max((c for c in checkpoint_indices if c < layer_idx), default=-1)
    a = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            a = layer(a)
    return a
