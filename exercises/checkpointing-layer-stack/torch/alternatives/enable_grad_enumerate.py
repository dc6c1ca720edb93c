"""enumerate() and i // segment_size group the layers; the loop runs under torch.enable_grad().

The groups are kept in a defaultdict(list) and checkpointed in key order.
"""

from collections import defaultdict

import torch
from torch import nn
from torch.utils import checkpoint as cp


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    groups = defaultdict(list)
    for i, layer in enumerate(layers):
        groups[i // segment_size].append(layer)
    with torch.enable_grad():
        for key in sorted(groups):
            x = cp.checkpoint(nn.Sequential(*groups[key]), x, use_reentrant=False)
    return x
