"""Uses use_reentrant=True and gives an input that needs no grad requires_grad by detaching it, so torch.autograd.grad cannot go through the checkpoints.

Breaks: autograd_grad
"""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    if not x.requires_grad:
        # The reentrant mode only builds a graph when an input requires grad.
        x = x.detach().requires_grad_()
    for start in range(0, len(layers), segment_size):
        segment = nn.Sequential(*layers[start : start + segment_size])
        x = checkpoint(segment, x, use_reentrant=True)
    return x
