"""A while loop over an index, with min() for the end of the last segment."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    def run_range(h, lo, hi):
        for j in range(lo, hi):
            h = layers[j](h)
        return h

    i = 0
    n = len(layers)
    while i < n:
        end = min(i + segment_size, n)
        x = checkpoint(run_range, x, i, end, use_reentrant=False)
        i = end
    return x
