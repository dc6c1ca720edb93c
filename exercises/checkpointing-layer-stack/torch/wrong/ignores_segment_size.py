"""Ignores segment_size and checkpoints the whole stack as one segment.

Breaks: segments_in_backward
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    def run_all(h):
        for layer in layers:
            h = layer(h)
        return h

    return checkpoint(run_all, x, use_reentrant=False)
