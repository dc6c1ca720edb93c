"""gradient_error divides everywhere: 0 / 0 gives NaN where both are 0, and the max is NaN.

Breaks: error_zero
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        f_plus = f(x)
        x[i] = old - eps
        f_minus = f(x)
        x[i] = old
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.abs(analytic - numeric) / np.maximum(np.abs(analytic), np.abs(numeric))
    return float(np.max(ratios))
