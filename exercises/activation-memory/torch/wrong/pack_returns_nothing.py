"""The pack hook records the size but returns nothing, so backward gets None instead of the saved tensor.

Breaks: inputs_and_parameters
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()

    def unpack(packed):
        return packed

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        fn(*inputs)
    return sum(sizes.values())
