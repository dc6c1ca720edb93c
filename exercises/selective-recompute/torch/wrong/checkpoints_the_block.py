"""Wraps the whole block in torch.utils.checkpoint, so backward runs both forward products again.

Breaks: memory_kept
"""

import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


def block(x, w1, b1, w2, b2):
    return F.linear(F.gelu(F.linear(x, w1, b1)), w2, b2)


def mlp_block(x, w1, b1, w2, b2):
    return checkpoint(block, x, w1, b1, w2, b2, use_reentrant=False)
