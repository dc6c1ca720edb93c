"""Uses a step of its own, 1e-6, whatever eps it is given.

Breaks: given_eps
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    h = 1e-6
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + h
        f_plus = f(x)
        x[i] = old - h
        f_minus = f(x)
        x[i] = old
        grad[i] = (f_plus - f_minus) / (2 * h)
    return grad


def gradient_error(analytic, numeric):
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(scale)
    ratios[scale > 0] = np.abs(analytic - numeric)[scale > 0] / scale[scale > 0]
    return float(ratios.max())
