"""Keeps the sizes in a module-level dict that is never emptied, so each call also counts the storages of earlier calls.

Breaks: single_operations
"""

import torch

SIZES = {}


def _pack(tensor):
    storage = tensor.untyped_storage()
    SIZES[storage.data_ptr()] = storage.nbytes()
    return tensor


def saved_bytes(fn, *inputs):
    with torch.autograd.graph.saved_tensors_hooks(_pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(SIZES.values())
