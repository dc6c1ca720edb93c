"""Calls torch.utils.checkpoint.checkpoint(use_reentrant=True) instead of writing the Function.

Breaks: autograd_grad
"""

import torch.utils.checkpoint


def checkpoint(fn, *args):
    return torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=True)
