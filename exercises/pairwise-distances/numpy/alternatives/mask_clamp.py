"""np.linalg.norm for the lengths, np.matmul for the product, a boolean mask to clamp."""

import numpy as np


def pairwise_sq_dists(x, y):
    x_len = np.linalg.norm(x, axis=1)
    y_len = np.linalg.norm(y, axis=1)
    d = (x_len**2)[:, None] + (y_len**2)[None, :] - 2 * np.matmul(x, y.T)
    d[d < 0] = 0
    return d
