"""Splits the stack into ceil(n / segment_size) segments of nearly equal size instead of full segments and a shorter last one.

Breaks: short_segments
"""

import math

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    count = math.ceil(len(layers) / segment_size)
    base, extra = divmod(len(layers), count)
    start = 0
    for k in range(count):
        stop = start + base + (1 if k < extra else 0)
        x = checkpoint(nn.Sequential(*layers[start:stop]), x, use_reentrant=False)
        start = stop
    return x
