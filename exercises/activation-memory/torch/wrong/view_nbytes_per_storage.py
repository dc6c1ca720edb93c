"""Dedupes by storage address but counts tensor.nbytes, the bytes of the saved view, not of the storage it keeps alive.

Breaks: shared_storage
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        sizes[tensor.untyped_storage().data_ptr()] = tensor.nbytes
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes.values())
