"""@torch.no_grad() and @torch.enable_grad() used as decorators, with plain index loops."""

import torch


@torch.no_grad()
def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {-1: x.clone()}
    h = x
    for i in range(len(layers)):
        h = layers[i](h)
        if i in checkpoint_indices:
            saved[i] = h.clone()
    return h, saved


@torch.enable_grad()
def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = layer_idx - 1
    while start >= 0 and start not in saved_activations:
        start -= 1
    h = saved_activations[start]
    for i in range(start + 1, layer_idx + 1):
        h = layers[i](h)
    return h
