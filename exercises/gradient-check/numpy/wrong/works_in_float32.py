"""Perturbs a float32 copy of x: f gets float32 arrays, in which x + 1e-6 is mostly x.

Breaks: one_element_moved
"""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros_like(x)
    work = x.astype(np.float32)
    for i in np.ndindex(x.shape):
        old = work[i]
        work[i] = old + eps
        f_plus = f(work)
        work[i] = old - eps
        f_minus = f(work)
        work[i] = old
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.zeros_like(scale)
    ratios[scale > 0] = np.abs(analytic - numeric)[scale > 0] / scale[scale > 0]
    return float(ratios.max())
