"""Keeps the storage objects in a list and dedupes with `is`, comparing objects, not addresses."""

import torch


def saved_bytes(fn, *inputs):
    storages = []

    def pack(tensor):
        storage = tensor.untyped_storage()
        if not any(storage is seen for seen in storages):
            storages.append(storage)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        fn(*inputs)
    return sum(storage.nbytes() for storage in storages)
