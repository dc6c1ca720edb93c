"""itertools.islice takes segment_size layers at a time from one iterator.

(Python 3.11 has no itertools.batched.)
"""

import itertools

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


def _chunks(iterable, size):
    it = iter(iterable)
    while chunk := tuple(itertools.islice(it, size)):
        yield chunk


def _run(h, chunk):
    for layer in chunk:
        h = layer(h)
    return h


def forward_with_checkpointing(layers: nn.ModuleList, x: torch.Tensor, segment_size: int):
    for chunk in _chunks(layers, segment_size):
        x = checkpoint(_run, x, chunk, use_reentrant=False)
    return x
