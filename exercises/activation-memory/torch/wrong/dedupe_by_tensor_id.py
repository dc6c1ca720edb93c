"""Dedupes by id(tensor): two different views of one storage (x and x.T) count it twice.

Breaks: shared_storage
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        sizes[id(tensor)] = tensor.untyped_storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes.values())
