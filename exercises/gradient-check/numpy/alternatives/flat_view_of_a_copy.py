"""Works on one copy of x through a flat view of it, writing each saved value back; the
error from a boolean mask."""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    work = np.array(x, dtype=np.float64, copy=True)
    flat = work.reshape(-1)  # a view: work is a fresh contiguous array
    grad = np.zeros(work.size)
    for k in range(flat.size):
        saved = flat[k]
        flat[k] = saved + eps
        up = f(work)
        flat[k] = saved - eps
        down = f(work)
        flat[k] = saved
        grad[k] = (up - down) / (2 * eps)
    return grad.reshape(x.shape)


def gradient_error(analytic, numeric):
    a = np.asarray(analytic, dtype=np.float64)
    n = np.asarray(numeric, dtype=np.float64)
    both_zero = (a == 0) & (n == 0)
    scale = np.where(both_zero, 1.0, np.maximum(np.abs(a), np.abs(n)))
    return float(np.max(np.abs(a - n) / scale))
