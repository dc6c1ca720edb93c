import torch
from torch import nn
from torch.utils.checkpoint import checkpoint  # noqa: F401


def forward_with_checkpointing(
    layers: nn.ModuleList, x: torch.Tensor, segment_size: int
) -> torch.Tensor:
    """Run ``x`` through ``layers`` in checkpointed segments of ``segment_size`` layers.

    Each segment (the last one may be shorter) goes through
    ``torch.utils.checkpoint.checkpoint(..., use_reentrant=False)``, and its output is the
    input of the next segment. The result and all gradients computed from it, by
    ``.backward()`` or by ``torch.autograd.grad``, equal those of a plain forward through
    every layer, bit for bit.

    Args:
        layers: the stack of layers, applied in order.
        x: the input tensor; it may or may not require grad.
        segment_size: how many consecutive layers share one checkpoint (at least 1).

    Returns:
        The output of the last layer.
    """
    raise NotImplementedError
