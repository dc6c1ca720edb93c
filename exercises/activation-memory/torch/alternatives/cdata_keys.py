"""Tells storages apart by untyped_storage()._cdata, the address of the C++ storage object."""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage._cdata] = len(storage)  # len() of an untyped storage is its bytes
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        fn(*inputs)
    return sum(sizes.values())
