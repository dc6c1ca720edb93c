"""Forward differences: f at x once, then at x + eps e_i for each element.

Breaks: calls_twice_per_element
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    f_x = f(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        grad[i] = (f(x) - f_x) / eps
        x[i] = old
    return grad


def gradient_error(analytic, numeric):
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(scale)
    ratios[scale > 0] = np.abs(analytic - numeric)[scale > 0] / scale[scale > 0]
    return float(ratios.max())
