"""An OrderedDict for saved; the start found by scanning the keys in sorted(reverse=True) order."""

from collections import OrderedDict

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = OrderedDict()
    with torch.no_grad():
        saved[-1] = x.clone()
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i in checkpoint_indices:
                saved[i] = h.clone()
    return h, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    for start in sorted(saved_activations, reverse=True):
        if start < layer_idx:
            break
    h = saved_activations[start]
    with torch.enable_grad():
        for layer in layers[start + 1 : layer_idx + 1]:
            h = layer(h)
    return h
