"""Runs the forward pass with autograd on, so the output and checkpoints carry a graph.

Breaks: forward_without_graph
"""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x.clone()}
    h = x
    for i, layer in enumerate(layers):
        h = layer(h)
        if i in checkpoint_indices:
            saved[i] = h.clone()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = max(k for k in saved_activations if k < layer_idx)
    h = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
