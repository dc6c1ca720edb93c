"""Keeps a set of the storage addresses already counted and a running total."""

import torch


def saved_bytes(fn, *inputs):
    seen = set()
    total = 0

    def pack(tensor):
        nonlocal total
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in seen:
            seen.add(storage.data_ptr())
            total += storage.nbytes()
        return tensor

    def unpack(tensor):
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        fn(*inputs)
    return total
