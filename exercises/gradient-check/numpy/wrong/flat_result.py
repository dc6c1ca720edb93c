"""Collects the differences in a list and returns it as a 1-D array, not in x's shape.

Breaks: shape_and_dtype
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    flat = x.reshape(-1)
    values = []
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        f_plus = f(x)
        flat[i] = old - eps
        f_minus = f(x)
        flat[i] = old
        values.append((f_plus - f_minus) / (2 * eps))
    return np.array(values)


def gradient_error(analytic, numeric):
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(scale)
    ratios[scale > 0] = np.abs(analytic - numeric)[scale > 0] / scale[scale > 0]
    return float(ratios.max())
