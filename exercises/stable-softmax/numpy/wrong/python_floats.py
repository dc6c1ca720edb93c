"""Works slice by slice with Python's math module and rebuilds the result with
np.array(...) of Python floats: float32 in, float64 out.

Breaks: keeps_dtype
"""

import math

import numpy as np


def _lse(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def logsumexp(x, axis=-1):
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    return np.array([_lse(list(r)) for r in rows]).reshape(moved.shape[:-1])


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    keep = np.moveaxis(mask, axis, -1).reshape(rows.shape)
    out = []
    for row, k in zip(rows, keep):
        kept = [float(v) for v, on in zip(row, k) if on]
        if not kept:
            out.append([0.0] * len(row))
            continue
        lse = _lse(kept)
        out.append([math.exp(v - lse) if on else 0.0 for v, on in zip(row, k)])
    return np.moveaxis(np.array(out).reshape(moved.shape), -1, axis)
