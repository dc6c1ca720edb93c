"""Dedupes by tensor.data_ptr(), the address of the view's first element: views at other offsets (x[0], x[1]) count the storage again.

Breaks: shared_storage
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        sizes[tensor.data_ptr()] = tensor.untyped_storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return sum(sizes.values())
