"""Slices the segment inside a nested function that reads the loop index late.

Breaks: segments_in_backward
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    for start in range(0, len(layers), segment_size):

        def run_segment(h):
            for layer in layers[start : start + segment_size]:
                h = layer(h)
            return h

        x = checkpoint(run_segment, x, use_reentrant=False)
    return x
