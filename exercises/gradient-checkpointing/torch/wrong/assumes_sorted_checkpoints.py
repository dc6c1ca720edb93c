"""Recompute scans checkpoint_indices assuming they are sorted.

Breaks: unsorted_and_repeated
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
    start = -1
    for c in checkpoint_indices:
        if c >= layer_idx:
            break
        start = c
    h = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
