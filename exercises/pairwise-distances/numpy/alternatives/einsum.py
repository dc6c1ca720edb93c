"""np.einsum for the squared lengths and for the dot products, np.clip to clamp."""

import numpy as np


def pairwise_sq_dists(x, y):
    x_sq = np.einsum("ik,ik->i", x, x)
    y_sq = np.einsum("jk,jk->j", y, y)
    cross = np.einsum("ik,jk->ij", x, y)
    return np.clip(x_sq[:, np.newaxis] + y_sq[np.newaxis, :] - 2 * cross, 0, None)
