"""Recompute clones the starting tensor first (a clone stays attached to what it copies)."""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    with torch.no_grad():
        saved = {-1: x.clone()}
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i in set(checkpoint_indices):
                saved[i] = h.clone()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    with torch.enable_grad():
        start = sorted(k for k in saved_activations if k < layer_idx)[-1]
        h = saved_activations[start].clone()
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
