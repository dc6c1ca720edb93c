"""Adds the storage's bytes for every saved tensor, so a storage saved twice (x * x) counts twice.

Breaks: shared_storage
"""

import torch


def saved_bytes(fn, *inputs):
    total = 0

    def pack(tensor):
        nonlocal total
        total += tensor.untyped_storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        fn(*inputs)
    return total
