import numpy as np  # noqa: F401


def numerical_gradient(f, x, eps=1e-6):
    """Estimate the gradient of ``f`` at ``x`` with central differences.

    Args:
        f: takes an array of ``x``'s shape and returns a scalar (a float or a 0-d array).
        x: float64 array with 1 to 3 dimensions and at least one element.
        eps: the step added to and taken from one element at a time.

    Returns:
        A float64 array of ``x``'s shape whose element ``i`` is
        ``(f(x + eps e_i) - f(x - eps e_i)) / (2 eps)``. ``x`` holds exactly its
        original values when you return.
    """
    raise NotImplementedError


def gradient_error(analytic, numeric):
    """The largest relative error between two gradients of the same shape.

    Per element: ``|a - n| / max(|a|, |n|)``, and 0 where ``a`` and ``n`` are both 0.

    Returns:
        The largest of these, as a float.
    """
    raise NotImplementedError
