"""Layers are called as layer.forward(h) instead of layer(h), in a default-argument closure."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    for start in range(0, len(layers), segment_size):

        def segment_forward(h, mods=tuple(layers[start : start + segment_size])):
            for mod in mods:
                h = mod.forward(h)
            return h

        x = checkpoint(segment_forward, x, use_reentrant=False)
    return x
