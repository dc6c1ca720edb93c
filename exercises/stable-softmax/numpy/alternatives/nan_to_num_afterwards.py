"""Lets the fully masked slices become NaN under np.errstate, then replaces NaN by 0."""

import numpy as np


def logsumexp(x, axis=-1):
    m = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(x - m), axis=axis))


def softmax(x, axis=-1, mask=None):
    z = x if mask is None else np.where(mask, x, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.exp(z - np.max(z, axis=axis, keepdims=True))
        p = e / np.sum(e, axis=axis, keepdims=True)
    return np.nan_to_num(p, nan=0.0)
