"""A weakref.WeakKeyDictionary keyed by the storage objects, read while fn's output is held."""

import weakref

import torch


def saved_bytes(fn, *inputs):
    sizes = weakref.WeakKeyDictionary()

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        output = fn(*inputs)
    total = sum(sizes.values())
    del output
    return total
