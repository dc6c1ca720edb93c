"""Recursion: checkpoint the first segment, then recurse on the rest of the stack."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    if len(layers) == 0:
        return x
    head = nn.Sequential(*layers[:segment_size])
    out = checkpoint(head, x, use_reentrant=False)
    return forward_with_checkpointing(layers[segment_size:], out, segment_size)
