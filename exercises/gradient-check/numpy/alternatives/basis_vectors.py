"""Adds scaled rows of an identity matrix (x + eps e_i) in a comprehension; the zero rule
with np.divide(where=...)."""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    steps = eps * np.eye(x.size).reshape((x.size, *x.shape))
    values = [(f(x + step) - f(x - step)) / (2 * eps) for step in steps]
    return np.array(values, dtype=np.float64).reshape(x.shape)


def gradient_error(analytic, numeric):
    difference = np.abs(analytic - numeric)
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    ratios = np.divide(difference, scale, out=np.zeros_like(difference), where=scale != 0)
    return float(np.amax(ratios))
