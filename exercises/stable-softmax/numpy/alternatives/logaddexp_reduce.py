"""np.logaddexp.reduce for logsumexp (stable by construction); softmax from it."""

import numpy as np


def logsumexp(x, axis=-1):
    return np.logaddexp.reduce(x, axis=axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    z = np.where(mask, x, -np.inf)
    lse = np.logaddexp.reduce(z, axis=axis, keepdims=True)
    lse = np.where(np.isneginf(lse), 0, lse)  # fully masked: exp(-inf - 0) = 0
    return np.exp(z - lse)
