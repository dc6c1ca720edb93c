"""A reusable measuring class with __enter__ and __exit__ that installs the hooks itself."""

import torch


class SavedTensorMeter:
    def __init__(self):
        self.storages = {}
        self._hooks = torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)

    def pack(self, tensor):
        storage = tensor.untyped_storage()
        self.storages[storage.data_ptr()] = storage.nbytes()
        return tensor

    def unpack(self, tensor):
        return tensor

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc_info):
        return self._hooks.__exit__(*exc_info)

    @property
    def nbytes(self):
        return sum(self.storages.values())


def saved_bytes(fn, *inputs):
    with SavedTensorMeter() as meter:
        fn(*inputs)
    return meter.nbytes
