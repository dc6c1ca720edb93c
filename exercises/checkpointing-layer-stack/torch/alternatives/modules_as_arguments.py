"""The segment's modules are passed as checkpoint arguments: checkpoint(run, h, *segment)."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def run(h, *modules):
    for m in modules:
        h = m(h)
    return h


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    out = x
    for start in range(0, len(layers), segment_size):
        segment = layers[start : start + segment_size]
        out = checkpoint(run, out, *segment, use_reentrant=False)
    return out
