"""The deprecated typed storage: tensor.storage().size() elements of element_size() bytes."""

import warnings

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # TypedStorage is deprecated; it still works
            storage = tensor.storage()
            sizes[storage.data_ptr()] = storage.size() * tensor.element_size()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        fn(*inputs)
    return sum(sizes.values())
