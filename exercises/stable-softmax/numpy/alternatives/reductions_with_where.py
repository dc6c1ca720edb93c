"""The where= and initial= arguments of np.max and np.sum skip the masked entries."""

import numpy as np


def logsumexp(x, axis=-1):
    top = np.amax(x, axis=axis, keepdims=True)
    return np.log(np.sum(np.exp(x - top), axis=axis)) + np.squeeze(top, axis=axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        mask = np.full(x.shape, True)
    top = np.max(x, axis=axis, keepdims=True, where=mask, initial=-np.inf)
    top[np.isinf(top)] = 0
    weights = np.zeros_like(x)
    np.exp(x - top, out=weights, where=mask)
    total = np.sum(weights, axis=axis, keepdims=True, where=mask)
    return np.divide(weights, total, out=np.zeros_like(x), where=total > 0)
