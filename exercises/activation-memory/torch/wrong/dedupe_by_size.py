"""Keeps a set of the storage sizes seen, so two different storages of the same size (x * y) count once.

Breaks: single_operations
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = set()

    def pack(tensor):
        sizes.add(tensor.untyped_storage().nbytes())
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes)
