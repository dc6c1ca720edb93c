"""Counts the storages of every tensor input as well, whether autograd saves them or not.

Breaks: single_operations
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}
    for value in inputs:
        if isinstance(value, torch.Tensor):
            storage = value.untyped_storage()
            sizes[storage.data_ptr()] = storage.nbytes()

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes.values())
