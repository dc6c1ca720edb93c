"""Walks x with np.nditer and multi_index, saving and writing back each value; the zero
rule with np.where under np.errstate."""

import numpy as np


def numerical_gradient(f, x, eps=1e-6):
    grad = np.zeros(x.shape)
    it = np.nditer(x, flags=["multi_index"], op_flags=["readwrite"])
    while not it.finished:
        ix = it.multi_index
        old = x[ix]
        x[ix] = old + eps
        fxph = f(x)
        x[ix] = old - eps
        fxmh = f(x)
        x[ix] = old
        grad[ix] = (fxph - fxmh) / (2 * eps)
        it.iternext()
    return grad


def gradient_error(analytic, numeric):
    difference = np.abs(analytic - numeric)
    scale = np.maximum(np.abs(analytic), np.abs(numeric))
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.where(scale == 0, 0.0, difference / scale)
    return float(ratios.max())
