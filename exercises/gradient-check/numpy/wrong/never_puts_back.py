"""Perturbs x in place and never puts the element back: x[i] ends at x[i] - eps, so the
next elements' calls see two elements moved.

Breaks: one_element_moved
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        x[i] += eps
        f_plus = f(x)
        x[i] -= 2 * eps
        f_minus = f(x)
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(scale)
    ratios[scale > 0] = np.abs(analytic - numeric)[scale > 0] / scale[scale > 0]
    return float(ratios.max())
