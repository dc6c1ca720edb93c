"""Walks the sorted checkpoint list with a pointer, which a repeated index stalls.

Breaks: forward_without_graph
"""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    wanted = sorted(checkpoint_indices)
    pointer = 0
    with torch.no_grad():
        saved = {-1: x.clone()}
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if pointer < len(wanted) and wanted[pointer] == i:
                saved[i] = h.clone()
                pointer += 1
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
