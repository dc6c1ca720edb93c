import numpy as np  # noqa: F401


def pairwise_sq_dists(x, y):
    """Squared Euclidean distance between every row of ``x`` and every row of ``y``.

    Args:
        x: array of shape ``(n, d)``, ``float32`` or ``float64``.
        y: array of shape ``(m, d)``, of the same dtype as ``x``.

    Returns:
        A new array ``D`` of shape ``(n, m)`` and the inputs' dtype, with
        ``D[i, j] = sum over k of (x[i, k] - y[j, k]) ** 2``, never negative. No
        ``(n, m, d)`` intermediate, and ``x`` and ``y`` are left unchanged.
    """
    raise NotImplementedError
