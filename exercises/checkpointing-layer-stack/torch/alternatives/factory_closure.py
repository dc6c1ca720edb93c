"""A factory function returns a fresh closure over each segment."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def make_segment_fn(segment):
    def run(h):
        for layer in segment:
            h = layer(h)
        return h

    return run


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    n = len(layers)
    for i in range(0, n, segment_size):
        x = checkpoint(make_segment_fn(list(layers)[i : i + segment_size]), x, use_reentrant=False)
    return x
