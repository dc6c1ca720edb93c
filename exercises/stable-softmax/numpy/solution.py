import numpy as np


def logsumexp(x, axis=-1):
    """log(sum(exp(x))) along ``axis``, with the slice's maximum taken out first."""
    top = np.max(x, axis=axis, keepdims=True)
    total = np.sum(np.exp(x - top), axis=axis, keepdims=True)
    return np.squeeze(top + np.log(total), axis=axis)


def softmax(x, axis=-1, mask=None):
    """exp(x - max) normalised along ``axis``; masked entries count as -inf."""
    if mask is None:
        mask = np.ones(x.shape, dtype=bool)
    kept = np.where(mask, x, -np.inf)  # exp(-inf) is 0: masked entries drop out
    top = np.max(kept, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)  # a fully masked slice has no maximum
    weights = np.exp(kept - top)
    total = np.sum(weights, axis=axis, keepdims=True)
    return weights / np.where(total > 0, total, 1)  # 0 / 1 for a fully masked slice
