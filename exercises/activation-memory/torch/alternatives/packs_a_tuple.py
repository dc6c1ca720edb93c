"""The pack hook returns (address, tensor) and the unpack hook takes the tensor back out."""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return storage.data_ptr(), tensor

    def unpack(packed):
        _, tensor = packed
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        fn(*inputs)
    return sum(sizes.values())
