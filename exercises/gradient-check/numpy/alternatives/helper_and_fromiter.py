"""One helper per partial derivative, the results gathered with np.fromiter; the error as
the max of a generator."""

import numpy as np


def partial(f, x, index, eps):
    shifted = x.copy()
    shifted[index] = x[index] + eps
    f_plus = float(f(shifted))
    shifted[index] = x[index] - eps
    f_minus = float(f(shifted))
    return (f_plus - f_minus) / (2 * eps)


def numerical_gradient(f, x, eps=1e-6):
    values = (partial(f, x, index, eps) for index in np.ndindex(x.shape))
    return np.fromiter(values, dtype=np.float64, count=x.size).reshape(x.shape)


def ratio(a, n):
    if a == 0 and n == 0:
        return 0.0
    return abs(a - n) / max(abs(a), abs(n))


def gradient_error(analytic, numeric):
    return float(max(ratio(a, n) for a, n in zip(analytic.flat, numeric.flat, strict=True)))
