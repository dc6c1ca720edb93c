import torch  # noqa: F401


def saved_bytes(fn, *inputs):
    """Run ``fn(*inputs)`` once and measure what autograd keeps for its backward pass.

    Call ``fn`` inside ``torch.autograd.graph.saved_tensors_hooks(pack, unpack)``: autograd
    calls ``pack(tensor)`` for every tensor it saves, and ``unpack(packed)`` during
    backward to get it back.

    Args:
        fn: any callable; its return value is not needed.
        *inputs: the arguments to pass to ``fn``, as they are (possibly none).

    Returns:
        The number of bytes of the storages of the saved tensors, an ``int``: each
        storage counted once, in full (``tensor.untyped_storage().nbytes()``), however
        many saved tensors share it. 0 when autograd saves nothing.
    """
    raise NotImplementedError
