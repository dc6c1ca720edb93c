"""gradient_error keeps the denominator at least 1e-8 to avoid dividing by 0: where both
values are far below 1e-8 (1e-9 against 0), the error comes out far too small.

Breaks: error_formula
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
        grad[i] = (f_plus - f_minus) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    scale = np.maximum(np.maximum(np.abs(analytic), np.abs(numeric)), 1e-8)
    return float(np.max(np.abs(analytic - numeric) / scale))
