import torch  # noqa: F401


def numerical_gradient(f, x, eps=1e-6):
    """Estimate the gradient of ``f`` at ``x`` with central differences.

    Args:
        f: takes a tensor of ``x``'s shape and returns a scalar (a float or a 0-d tensor).
        x: float64 tensor with 1 to 3 dimensions and at least one element; it may
            require grad.
        eps: the step added to and taken from one element at a time.

    Returns:
        A float64 tensor of ``x``'s shape, with no autograd graph, whose element ``i`` is
        ``(f(x + eps e_i) - f(x - eps e_i)) / (2 eps)``. ``x`` holds exactly its
        original values when you return.
    """
    raise NotImplementedError


def gradient_error(analytic, numeric):
    """The largest relative error between two gradients (tensors of the same shape).

    Per element: ``|a - n| / max(|a|, |n|)``, and 0 where ``a`` and ``n`` are both 0.

    Returns:
        The largest of these, as a Python float.
    """
    raise NotImplementedError


def check_gradient(f, x):
    """Compare autograd's gradient of ``f`` at ``x`` with ``numerical_gradient(f, x)``.

    Args:
        f: computes a 0-d tensor from its input with torch operations.
        x: float64 tensor that does not require grad; leave it so (work on a copy
            that requires grad, not on ``x`` itself).

    Returns:
        ``gradient_error(analytic, numeric)``, a Python float.
    """
    raise NotImplementedError
