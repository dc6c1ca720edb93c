"""Runs each segment's layers under torch.no_grad() inside the checkpointed function, so the result has no graph.

Breaks: segments_in_backward
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def run_segment(h, segment):
    with torch.no_grad():  # "checkpointed code keeps no activations"
        for layer in segment:
            h = layer(h)
    return h


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    for start in range(0, len(layers), segment_size):
        x = checkpoint(run_segment, x, layers[start : start + segment_size], use_reentrant=False)
    return x
