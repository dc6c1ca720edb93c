"""Recursion: each activation is its layer applied to the one below, down to a saved one."""

import torch


def checkpoint_forward(layers, x, checkpoint_indices):
    saved = {}

    def run(i, a):
        if i in checkpoint_indices or i == -1:
            saved[i] = a.clone()
        if i + 1 == len(layers):
            return a
        return run(i + 1, layers[i + 1](a))

    with torch.no_grad():
        output = run(-1, x)
    return output, saved


def checkpoint_recompute(layers, saved_activations, checkpoint_indices, layer_idx):
    def rebuild(i):
        if i < layer_idx and i in saved_activations:
            return saved_activations[i]
        return layers[i](rebuild(i - 1))

    with torch.enable_grad():
        return rebuild(layer_idx)
