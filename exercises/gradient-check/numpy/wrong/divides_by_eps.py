"""Divides the central difference by eps instead of 2 eps: every value is doubled.

Breaks: central_values
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
        grad[i] = (f_plus - f_minus) / eps
    return grad


def gradient_error(analytic, numeric):
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(scale)
    ratios[scale > 0] = np.abs(analytic - numeric)[scale > 0] / scale[scale > 0]
    return float(ratios.max())
