"""gradient_error returns the array of per-element ratios and forgets to take their
largest.

Breaks: error_is_a_float
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        saved = x[index]
        x[index] = saved + eps
        f_plus = f(x)
        x[index] = saved - eps
        f_minus = f(x)
        x[index] = saved
        grad[index] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    difference = np.abs(analytic - numeric)
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(difference)
    nonzero = scale > 0
    ratios[nonzero] = difference[nonzero] / scale[nonzero]
    return ratios
