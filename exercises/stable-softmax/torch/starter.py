import torch  # noqa: F401


def logsumexp(x, dim=-1):
    """log(sum(exp(x))) along ``dim``, without overflow.

    Args:
        x: a float32 or float64 tensor with 1 to 3 dimensions (finite values).
        dim: the dimension to reduce; negative values count from the end.

    Returns:
        A tensor of ``x``'s dtype and shape with ``dim`` removed (0-d for a 1-D ``x``),
        attached to the autograd graph when ``x`` requires grad.
    """
    raise NotImplementedError


def softmax(x, dim=-1, mask=None):
    """exp(x) divided by its sum along ``dim``, leaving out the entries ``mask`` hides.

    Args:
        x: a float32 or float64 tensor with 1 to 3 dimensions (finite values).
        dim: the dimension to normalise along; negative values count from the end.
        mask: None (nothing is left out) or a bool tensor of ``x``'s shape; False marks
            an entry that is left out.

    Returns:
        A tensor of ``x``'s dtype and shape, attached to the autograd graph when ``x``
        requires grad. Masked entries are 0, the others sum to 1 along ``dim``; a slice
        whose mask is all False is all zeros. ``x`` and ``mask`` are left unchanged.
    """
    raise NotImplementedError
