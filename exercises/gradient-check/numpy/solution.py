import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    """Central differences of ``f`` at ``x``, one element at a time."""
    grad = np.zeros_like(x)  # float64, like x
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = saved + eps
        f_plus = f(x)
        x[index] = saved - eps
        f_minus = f(x)
        x[index] = saved  # put the element back exactly as it was
        grad[index] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    """The largest |a - n| / max(|a|, |n|), counting 0 where both are 0."""
    difference = np.abs(analytic - numeric)
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(difference)
    nonzero = scale > 0
    ratios[nonzero] = difference[nonzero] / scale[nonzero]
    return float(np.max(ratios))
