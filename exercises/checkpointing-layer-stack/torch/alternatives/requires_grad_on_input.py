"""Non-reentrant checkpoints, with a defensive copy of x that requires grad when x does not."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    h = x if x.requires_grad else x.detach().clone().requires_grad_(True)
    for start in range(0, len(layers), segment_size):
        h = checkpoint(nn.Sequential(*layers[start : start + segment_size]), h, use_reentrant=False)
    return h
