import numpy as np  # noqa: F401


def mlp_step(params, x, y, velocity, lr, momentum):
    """One training step of a two-layer network with SGD and momentum.

    The network is ``pred = relu(x @ W1 + b1) @ W2 + b2`` and the loss is the mean of
    ``(pred - y) ** 2`` over all its elements.

    Args:
        params: dict of float64 arrays ``"W1"`` (d, h), ``"b1"`` (h,), ``"W2"`` (h, k),
            ``"b2"`` (k,). Updated in place: ``p <- p - lr * v`` with the new ``v``.
        x: float64 array of shape (n, d).
        y: float64 array of shape (n, k).
        velocity: dict with the same keys and shapes. Updated in place first:
            ``v <- momentum * v + g``, where ``g`` is the gradient of the loss.
        lr: the learning rate, a float > 0.
        momentum: a float with 0 < momentum < 1.

    The arrays may be non-contiguous: write through them, not through ``p.ravel()``.
    ``x`` and ``y`` are left unchanged.

    Returns:
        The loss before the update, as a float. Take relu'(0) = 0.
    """
    raise NotImplementedError
