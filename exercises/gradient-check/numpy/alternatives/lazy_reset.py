"""One working copy, reset from x at the start of each element (left perturbed at the
end, which is fine: it is not x); the error through np.max on masked ratios."""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    work = np.empty_like(x)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        work[...] = x
        work[index] = x[index] + eps
        f_plus = f(work)
        work[index] = x[index] - eps
        grad[index] = (f_plus - f(work)) / (2 * eps)
    return grad


def gradient_error(analytic, numeric):
    difference = np.abs(analytic - numeric)
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    mask = scale > 0
    if not mask.any():
        return 0.0
    return float(np.max(difference[mask] / scale[mask]))
