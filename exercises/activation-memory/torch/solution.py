import torch


def saved_bytes(fn, *inputs):
    """Bytes of the storages autograd saves for backward while ``fn(*inputs)`` runs."""
    # storage address -> size in bytes. Several saved tensors (x * x saves x twice, two
    # views of one tensor) share one storage: keyed by its address, it counts once.
    storages = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        # The whole storage, not the view's own elements: a saved view keeps all of it alive.
        storages[storage.data_ptr()] = storage.nbytes()
        return tensor  # unchanged, so that backward still gets the tensor it needs

    def unpack(tensor):
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        fn(*inputs)
    return sum(storages.values())
