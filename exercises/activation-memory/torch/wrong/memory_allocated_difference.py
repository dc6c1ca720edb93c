"""Measures torch.cuda.memory_allocated() before and after fn: it tracks GPU allocations only (0 on CPU), not what autograd saves.

Breaks: single_operations
"""

import torch


def saved_bytes(fn, *inputs):
    before = torch.cuda.memory_allocated()
    output = fn(*inputs)  # noqa: F841 - kept alive while measuring
    return torch.cuda.memory_allocated() - before
