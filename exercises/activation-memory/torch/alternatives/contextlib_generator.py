"""A @contextlib.contextmanager generator yields the dict the hooks fill."""

import contextlib

import torch


@contextlib.contextmanager
def recording_saved_storages():
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda packed: packed):
        yield sizes


def saved_bytes(fn, *inputs):
    with recording_saved_storages() as sizes:
        fn(*inputs)
    return int(sum(sizes.values()))
