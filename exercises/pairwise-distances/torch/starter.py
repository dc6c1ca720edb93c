import torch  # noqa: F401


def pairwise_sq_dists(x, y):
    """Squared Euclidean distance between every row of ``x`` and every row of ``y``.

    Args:
        x: tensor of shape ``(n, d)``, ``torch.float32`` or ``torch.float64``.
        y: tensor of shape ``(m, d)``, of the same dtype as ``x``.

    Returns:
        A new tensor ``D`` of shape ``(n, m)`` and the inputs' dtype, with
        ``D[i, j] = sum over k of (x[i, k] - y[j, k]) ** 2``, never negative. No
        ``(n, m, d)`` intermediate, and ``x`` and ``y`` are left unchanged.
    """
    raise NotImplementedError
