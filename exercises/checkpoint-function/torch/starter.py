import torch


class CheckpointFunction(torch.autograd.Function):
    """Runs ``fn`` without a graph in the forward pass and replays it during backward.

    Used as ``CheckpointFunction.apply(fn, *args)``: ``fn`` and every element of ``args``
    are inputs of the Function, so ``backward`` returns one entry for ``fn`` and one for
    each argument.
    """

    @staticmethod
    def forward(ctx, fn, *args):
        """Run ``fn(*args)`` once, without recording a graph, and return its output.

        Before ``fn`` runs, take a snapshot of the CPU random state. Keep the tensor
        arguments with ``ctx.save_for_backward`` (all of them and nothing else), and
        everything else the replay needs (``fn``, the plain values, where each argument
        goes, the random state) as attributes of ``ctx``.
        """
        raise NotImplementedError

    @staticmethod
    def backward(ctx, grad_output):
        """Replay ``fn`` and backpropagate ``grad_output`` through the replay.

        Rebuild the arguments (each saved tensor detached, with the ``requires_grad`` of
        the original), run ``fn`` on them with autograd on and with the random state of
        the forward pass (then give the caller its own random state back), call
        ``torch.autograd.backward`` on the replay's output, and return ``None`` for
        ``fn`` followed by one entry per argument: the gradient of each tensor that
        requires grad, ``None`` for everything else.
        """
        raise NotImplementedError


def checkpoint(fn, *args):
    """Return ``fn(*args)``, computed without keeping any intermediate tensor.

    Autograd keeps only the tensor arguments; during backward ``fn`` runs once more, with
    the same random numbers, to rebuild what the gradients need. Do not use
    ``torch.utils.checkpoint``.

    Args:
        fn: a callable that takes the arguments positionally and returns one tensor.
        *args: tensors (of any dtype, each requiring grad or not) and plain values
            (int, float, str, None, ...), in any order.

    Returns:
        The output of ``fn(*args)``, attached to the graph through your Function when at
        least one tensor argument requires grad.
    """
    return CheckpointFunction.apply(fn, *args)
