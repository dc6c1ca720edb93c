"""Moves the axis last and sums with a matrix product against a vector of ones."""

import numpy as np


def _sum_last(a):
    return a @ np.ones(a.shape[-1], dtype=a.dtype)


def logsumexp(x, axis=-1):
    last = np.moveaxis(x, axis, -1)
    top = last.max(axis=-1)
    return top + np.log(_sum_last(np.exp(last - top[..., None])))


def softmax(x, axis=-1, mask=None):
    last = np.moveaxis(x, axis, -1)
    keep = np.ones(last.shape, bool) if mask is None else np.moveaxis(mask, axis, -1)
    logits = np.where(keep, last, -np.inf)
    top = logits.max(axis=-1)
    top = np.where(keep.any(axis=-1), top, 0)
    weights = np.exp(logits - top[..., None])
    total = _sum_last(weights)
    total = np.where(total == 0, 1, total)
    return np.moveaxis(weights / total[..., None], -1, axis)
