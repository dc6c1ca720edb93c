import torch  # noqa: F401


def cross_entropy(logits, targets, ignore_index=-100):
    """Mean cross-entropy of ``logits`` against ``targets`` over the kept rows, by hand.

    Args:
        logits: float tensor of shape (N, C), float64 or float32, possibly requiring grad.
        targets: int64 tensor of shape (N,); each entry is a class in [0, C) or
            ``ignore_index``.
        ignore_index: rows whose target equals it are ignored.

    Returns:
        A 0-d tensor of the dtype of ``logits``: the mean over the kept rows of
        ``-log_softmax(logits)[i, targets[i]]``, 0.0 when every row is ignored. It is
        attached to the autograd graph of ``logits`` (``loss.backward()`` works), also
        when every row is ignored. PyTorch's nll_loss must not run (F.nll_loss,
        nn.NLLLoss, F.cross_entropy and nn.CrossEntropyLoss use it); any other torch
        function is fine. ``logits`` and ``targets`` are left as they were (not
        changed in place).
    """
    raise NotImplementedError
