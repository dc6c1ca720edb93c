"""Computes everything in float64 and casts the result back to x's dtype at the end."""

import numpy as np


def logsumexp(x, axis=-1):
    x64 = np.asarray(x, dtype=np.float64)
    m = x64.max(axis=axis, keepdims=True)
    out = np.log(np.exp(x64 - m).sum(axis=axis, keepdims=True)) + m
    return np.squeeze(out, axis=axis).astype(x.dtype)


def softmax(x, axis=-1, mask=None):
    x64 = np.asarray(x, dtype=np.float64)
    if mask is not None:
        x64 = np.where(mask, x64, -np.inf)
    m = x64.max(axis=axis, keepdims=True)
    m[m == -np.inf] = 0.0
    e = np.exp(x64 - m)
    s = e.sum(axis=axis, keepdims=True)
    s[s == 0.0] = 1.0
    return (e / s).astype(x.dtype)
