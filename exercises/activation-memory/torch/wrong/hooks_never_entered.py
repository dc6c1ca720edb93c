"""Creates the saved_tensors_hooks object but never enters it with `with`, so no hook is installed and the answer is always 0.

Breaks: single_operations
"""

import torch


def saved_bytes(fn, *inputs):
    sizes = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        sizes[storage.data_ptr()] = storage.nbytes()
        return tensor

    torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor)
    fn(*inputs)
    return sum(sizes.values())
