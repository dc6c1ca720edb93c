"""itertools.product over the rows as Python lists, math.fsum per pair, one flat list
reshaped to (n, m)."""

import itertools
import math

import numpy as np


def pairwise_sq_dists(x, y):
    pairs = list(itertools.product(x.tolist(), y.tolist()))
    flat = [math.fsum((a - b) * (a - b) for a, b in zip(p, q)) for p, q in pairs]
    return np.array(flat, dtype=x.dtype).reshape(x.shape[0], y.shape[0])
