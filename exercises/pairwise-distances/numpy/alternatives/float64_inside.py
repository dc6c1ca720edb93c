"""Computes in float64 whatever the inputs, then converts back to their dtype."""

import numpy as np


def pairwise_sq_dists(x, y):
    x64 = x.astype(np.float64)
    y64 = y.astype(np.float64)
    d = (x64**2).sum(1).reshape(-1, 1) - 2.0 * x64 @ y64.T + (y64**2).sum(1).reshape(1, -1)
    return np.maximum(d, 0.0).astype(x.dtype)
