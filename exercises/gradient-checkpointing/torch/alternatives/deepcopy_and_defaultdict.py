"""copy.deepcopy for the saved tensors (under no_grad), a defaultdict for saved."""

import copy
from collections import defaultdict

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = defaultdict(lambda: None)
    with torch.no_grad():
        saved[-1] = copy.deepcopy(x.detach())
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i in checkpoint_indices:
                saved[i] = copy.deepcopy(h)
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    start = next(k for k in range(layer_idx - 1, -2, -1) if k in saved_activations)
    h = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
