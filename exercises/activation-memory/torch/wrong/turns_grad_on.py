"""Runs fn under torch.enable_grad(), so a caller's torch.no_grad() no longer means nothing is saved.

Breaks: no_grad_and_in_place
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        fn(*inputs)
    return sum(sizes.values())
