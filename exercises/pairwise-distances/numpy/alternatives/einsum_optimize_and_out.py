"""np.einsum with optimize=True for the product, then np.add/np.clip with out= on the
result it made."""

import numpy as np


def pairwise_sq_dists(x, y):
    d = np.einsum("ik,jk->ij", x, y, optimize=True)
    np.multiply(d, -2, out=d)
    np.add(d, np.einsum("ik,ik->i", x, x)[:, np.newaxis], out=d)
    np.add(d, np.einsum("jk,jk->j", y, y)[np.newaxis, :], out=d)
    return np.clip(d, 0, None, out=d)
