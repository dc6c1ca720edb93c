"""Subclasses torch.autograd.graph.saved_tensors_hooks with its own pack and unpack methods."""

import torch


class CountSaved(torch.autograd.graph.saved_tensors_hooks):
    def __init__(self):
        self.by_address = {}
        super().__init__(self._pack, self._unpack)

    def _pack(self, tensor):
        storage = tensor.untyped_storage()
        self.by_address.setdefault(storage.data_ptr(), storage.nbytes())
        return tensor

    @staticmethod
    def _unpack(tensor):
        return tensor


def saved_bytes(fn, *inputs):
    counter = CountSaved()
    with counter:
        fn(*inputs)
    return sum(counter.by_address.values())
