import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(
    layers: nn.ModuleList, x: torch.Tensor, segment_size: int
) -> torch.Tensor:
    """Run ``x`` through ``layers``, checkpointing each group of ``segment_size`` layers."""
    hidden = x
    for first in range(0, len(layers), segment_size):
        # A fresh Sequential per segment holds that segment's own layers, so the backward
        # pass re-runs exactly these (no late-bound loop variable involved).
        segment = nn.Sequential(*layers[first : first + segment_size])
        # Non-reentrant mode: parameters get gradients even when ``x`` needs none.
        hidden = checkpoint(segment, hidden, use_reentrant=False)
    return hidden
