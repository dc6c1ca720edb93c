"""Adds numel() * element_size() for every saved tensor: a view counts only its own elements, and shared storage counts again each time.

Breaks: shared_storage
"""

import torch


def saved_bytes(fn, *inputs):
    total = 0

    def pack(tensor):
        nonlocal total
        total += tensor.numel() * tensor.element_size()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return total
