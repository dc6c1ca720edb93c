"""Counts the storage of fn's output as well, whether autograd saves it or not.

Breaks: single_operations
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        output = fn(*inputs)
    if isinstance(output, torch.Tensor):
        storage = output.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
    return sum(sizes.values())
