"""Plain Python loops with the math module over the rows of x moved to the last axis."""

import math

import numpy as np


def _row_logsumexp(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def logsumexp(x, axis=-1):
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty(len(rows), dtype=x.dtype)
    for i in range(len(rows)):
        out[i] = _row_logsumexp([float(v) for v in rows[i]])
    return out.reshape(moved.shape[:-1])


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones_like(x, dtype=bool)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    keep = np.moveaxis(mask, axis, -1).reshape(rows.shape)
    out = np.zeros(rows.shape, dtype=x.dtype)
    for i in range(len(rows)):
        kept = [float(rows[i, j]) for j in range(rows.shape[1]) if keep[i, j]]
        if not kept:
            continue
        top = max(kept)
        total = sum(math.exp(v - top) for v in kept)
        for j in range(rows.shape[1]):
            if keep[i, j]:
                out[i, j] = math.exp(float(rows[i, j]) - top) / total
    return np.moveaxis(out.reshape(moved.shape), -1, axis)
