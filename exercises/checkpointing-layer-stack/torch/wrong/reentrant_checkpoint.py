"""Uses use_reentrant=True, which gives no parameter gradients when x does not require grad.

Breaks: input_without_grad
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    for start in range(0, len(layers), segment_size):
        segment = nn.Sequential(*layers[start : start + segment_size])
        x = checkpoint(segment, x, use_reentrant=True)
    return x
