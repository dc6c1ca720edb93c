"""Uses the lengths of the rows (np.linalg.norm) where their squares belong.

Breaks: values
"""

import numpy as np


def pairwise_sq_dists(x, y):
    d = np.linalg.norm(x, axis=1)[:, None] - 2 * x @ y.T + np.linalg.norm(y, axis=1)[None, :]
    return np.maximum(d, 0)
