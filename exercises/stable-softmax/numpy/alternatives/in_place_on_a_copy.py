"""In-place operations (-=, np.exp(out=), /=) on a copy of x, never on x itself."""

import numpy as np


def logsumexp(x, axis=-1):
    work = x.copy()
    top = work.max(axis=axis, keepdims=True)
    work -= top
    np.exp(work, out=work)
    total = work.sum(axis=axis, keepdims=True)
    np.log(total, out=total)
    total += top
    return total.squeeze(axis)


def softmax(x, axis=-1, mask=None):
    work = x.copy()
    if mask is not None:
        work[~mask] = -np.inf
    top = work.max(axis=axis, keepdims=True)
    top[~np.isfinite(top)] = 0
    work -= top
    np.exp(work, out=work)
    total = work.sum(axis=axis, keepdims=True)
    total[total == 0] = 1
    work /= total
    return work
