"""Runs fn once outside the hooks (to try it) and once more inside them: fn must run once.

Breaks: single_operations
"""

import torch


def saved_bytes(fn, *inputs):
    fn(*inputs)
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes.values())
