"""Builds each segment's function as a closure over the loop variable (late binding).

Breaks: segments_in_backward
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    def run(segment, h):
        for layer in segment:
            h = layer(h)
        return h

    for start in range(0, len(layers), segment_size):
        segment = layers[start : start + segment_size]
        x = checkpoint(lambda h: run(segment, h), x, use_reentrant=False)
    return x
