"""softmax as exp(x - logsumexp(x)), reusing logsumexp on the masked logits."""

import numpy as np


def logsumexp(x, axis=-1):
    top = x.max(axis=axis, keepdims=True)
    lse = top + np.log(np.exp(x - top).sum(axis=axis, keepdims=True))
    return lse.squeeze(axis=axis)


def softmax(x, axis=-1, mask=None):
    if mask is None:
        return np.exp(x - np.expand_dims(logsumexp(x, axis), axis))
    any_kept = mask.any(axis=axis, keepdims=True)
    safe = np.where(mask, x, np.where(any_kept, -np.inf, 0))  # fully masked: all zeros
    lse = np.expand_dims(logsumexp(safe, axis), axis)
    return np.where(mask, np.exp(safe - lse), 0).astype(x.dtype)
