"""functools.reduce over the segments, with nested lambdas.

The inner lambda's segment is a parameter of the outer one, so it is bound per call.
"""

from functools import reduce

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    segments = [layers[i : i + segment_size] for i in range(0, len(layers), segment_size)]
    return reduce(
        lambda h, seg: checkpoint(
            lambda y: reduce(lambda acc, layer: layer(acc), seg, y), h, use_reentrant=False
        ),
        segments,
        x,
    )
