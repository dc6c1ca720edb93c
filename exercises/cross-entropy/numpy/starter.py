import numpy as np  # noqa: F401


def cross_entropy(logits, targets, ignore_index=-100):
    """Mean cross-entropy of ``logits`` against ``targets`` over the kept rows, and its gradient.

    Args:
        logits: float array of shape (N, C), float64 or float32.
        targets: int64 array of shape (N,); each entry is a class in [0, C) or
            ``ignore_index``.
        ignore_index: rows whose target equals it are ignored.

    Returns:
        ``(loss, grad)``: the mean over the kept rows of
        ``-log_softmax(logits)[i, targets[i]]`` (a float or a 0-d array; 0.0 when every
        row is ignored), and its gradient with respect to ``logits``, shape (N, C), dtype
        of ``logits``, zero on ignored rows. ``logits`` and ``targets`` are left as
        they were (not changed in place).
    """
    raise NotImplementedError
