"""Every +eps call first, then every -eps call, multiplying by 0.5 / eps; the error with
np.errstate and np.isnan."""

import numpy as np


def shifted(x, k, step):
    y = x.copy()
    y.flat[k] += step
    return y


def numerical_gradient(f, x, eps=1e-6):
    plus = np.array([f(shifted(x, k, eps)) for k in range(x.size)])
    minus = np.array([f(shifted(x, k, -eps)) for k in range(x.size)])
    return ((plus - minus) * (0.5 / eps)).reshape(x.shape)


def gradient_error(analytic, numeric):
    with np.errstate(invalid="ignore"):
        ratios = abs(analytic - numeric) / np.maximum(abs(analytic), abs(numeric))
    ratios[np.isnan(ratios)] = 0
    return ratios.max().item()
