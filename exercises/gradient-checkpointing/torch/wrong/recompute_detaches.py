"""Detaches the starting checkpoint, cutting it out of the recomputed graph.

Breaks: attached_to_graph
"""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    with torch.no_grad():
        saved = {-1: x.clone()}
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i in checkpoint_indices:
                saved[i] = h.clone()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start].detach()
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
