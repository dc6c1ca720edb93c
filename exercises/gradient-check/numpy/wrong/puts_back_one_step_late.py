"""Puts each element back only when the loop reaches the next one: the last element is
never put back, so x is returned with its last element at x[-1] - eps.

Breaks: x_given_back
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    pending = None  # (index, value) of the element still moved
    for index in np.ndindex(x.shape):
        if pending is not None:
            x[pending[0]] = pending[1]
        saved = x[index]
        pending = (index, saved)
        x[index] = saved + eps
        f_plus = f(x)
        x[index] = saved - eps
        f_minus = f(x)
        grad[index] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    difference = np.abs(analytic - numeric)
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(difference)
    nonzero = scale > 0
    ratios[nonzero] = difference[nonzero] / scale[nonzero]
    return float(np.max(ratios))
