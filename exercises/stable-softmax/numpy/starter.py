import numpy as np  # noqa: F401


def logsumexp(x, axis=-1):
    """log(sum(exp(x))) along ``axis``, without overflow.

    Args:
        x: a float32 or float64 array with 1 to 3 dimensions (finite values).
        axis: the axis to reduce; negative values count from the end.

    Returns:
        An array of ``x``'s dtype and shape with ``axis`` removed (a single number for a
        1-D ``x``).
    """
    raise NotImplementedError


def softmax(x, axis=-1, mask=None):
    """exp(x) divided by its sum along ``axis``, leaving out the entries ``mask`` hides.

    Args:
        x: a float32 or float64 array with 1 to 3 dimensions (finite values).
        axis: the axis to normalise along; negative values count from the end.
        mask: None (nothing is left out) or a bool array of ``x``'s shape; False marks an
            entry that is left out.

    Returns:
        An array of ``x``'s dtype and shape. Masked entries are 0, the others sum to 1
        along ``axis``; a slice whose mask is all False is all zeros. ``x`` and ``mask``
        are left unchanged.
    """
    raise NotImplementedError
