"""np.apply_along_axis with a 1-D helper for each function (the mask stacked with x)."""

import numpy as np


def _lse_1d(v):
    top = v.max()
    return top + np.log(np.exp(v - top).sum())


def _softmax_1d(pair):
    n = len(pair) // 2
    v, keep = pair[:n], pair[n:] > 0.5
    out = np.zeros_like(v)
    if keep.any():
        kept = v[keep]
        e = np.exp(kept - kept.max())
        out[keep] = e / e.sum()
    return out


def logsumexp(x, axis=-1):
    return np.apply_along_axis(_lse_1d, axis, x).astype(x.dtype)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    stacked = np.concatenate([x, mask.astype(x.dtype)], axis=axis)
    return np.apply_along_axis(_softmax_1d, axis, stacked).astype(x.dtype)
