"""Tells storages apart by the tensor a view was taken from (`id(t._base or t)`), not by
the storage's address: right for views, but `x.detach()` shares `x`'s storage without
being a view, so `d * x` counts it twice.

Breaks: shared_storage
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        owner = tensor._base if tensor._base is not None else tensor
        sizes[id(owner)] = tensor.untyped_storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes.values())
