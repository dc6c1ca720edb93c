"""Visits elements by flat number with np.unravel_index, in place on x with the saved
value written back; the error with np.max on np.where."""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros(x.shape, dtype=np.float64)
    for k in range(x.size):
        idx = np.unravel_index(k, x.shape)
        original = x[idx].copy()
        x[idx] = original - eps
        low = f(x)
        x[idx] = original + eps
        high = f(x)
        x[idx] = original
        grad[idx] = (high - low) / eps / 2
    return grad


def gradient_error(analytic, numeric):
    top = np.abs(analytic - numeric)
    bottom = np.maximum(np.abs(analytic), np.abs(numeric))
    safe = np.where(bottom > 0, bottom, 1.0)
    return float(np.max(np.where(bottom > 0, top / safe, 0.0)))
