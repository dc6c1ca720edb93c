"""torch.set_grad_enabled(True) around the loop; each segment is a small nn.Module subclass."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Segment(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.blocks = nn.ModuleList(blocks)

    def forward(self, h):
        for block in self.blocks:
            h = block(h)
        return h


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    with torch.set_grad_enabled(True):
        starts = range(0, len(layers), segment_size)
        for segment in [Segment(layers[s : s + segment_size]) for s in starts]:
            x = checkpoint(segment, x, use_reentrant=False, preserve_rng_state=True)
    return x
