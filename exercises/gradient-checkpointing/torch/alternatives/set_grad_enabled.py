"""torch.set_grad_enabled(False) for the forward and torch.set_grad_enabled(True) for the replay."""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    keep = set(checkpoint_indices)
    with torch.set_grad_enabled(False):
        saved = {-1: x.clone()}
        out = x
        for i, layer in enumerate(layers):
            out = layer(out)
            if i in keep:
                saved[i] = out.clone()
    return out, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    out = saved_activations[start]
    with torch.set_grad_enabled(True):
        for layer in layers[start + 1 : layer_idx + 1]:
            out = layer(out)
    return out
