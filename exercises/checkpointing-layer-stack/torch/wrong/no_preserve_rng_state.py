"""Passes preserve_rng_state=False, so dropout draws different numbers when a segment is rebuilt.

Breaks: rebuilds_same_segment
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    for start in range(0, len(layers), segment_size):
        segment = nn.Sequential(*layers[start : start + segment_size])
        x = checkpoint(segment, x, use_reentrant=False, preserve_rng_state=False)
    return x
