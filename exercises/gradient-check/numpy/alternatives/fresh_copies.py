"""A fresh copy of x for every call of f, indexed through .flat; the error as a Python
loop with max()."""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.empty_like(x)
    for k in range(x.size):
        plus = x.copy()
        plus.flat[k] += eps
        minus = x.copy()
        minus.flat[k] -= eps
        grad.flat[k] = (float(f(plus)) - float(f(minus))) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    worst = 0.0
    for a, n in zip(analytic.ravel().tolist(), numeric.ravel().tolist(), strict=True):
        scale = max(abs(a), abs(n))
        if scale != 0:
            worst = max(worst, abs(a - n) / scale)
    return worst
