"""A module-level pack function bound to the call's own dict with functools.partial."""

import functools

import torch


def _record(sizes, tensor):
    storage = tensor.untyped_storage()
    sizes[storage.data_ptr()] = storage.nbytes()
    return tensor


def _identity(packed):
    return packed


def saved_bytes(fn, *inputs):
    sizes = {}
    with torch.autograd.graph.saved_tensors_hooks(functools.partial(_record, sizes), _identity):
        fn(*inputs)
    return sum(sizes.values())
