"""Calls torch.utils.checkpoint.checkpoint(use_reentrant=False) instead of writing the Function.

Breaks: forward_pass
"""

from torch.utils import checkpoint as torch_checkpoint


def checkpoint(fn, *args):
    return torch_checkpoint.checkpoint(fn, *args, use_reentrant=False)
