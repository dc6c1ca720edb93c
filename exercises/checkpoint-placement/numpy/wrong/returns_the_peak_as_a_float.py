"""Computes the right peak, but as a NumPy float (np.max over a float array), where the
statement asks for an integer: a Python int or a NumPy integer.

Breaks: small_networks
"""

from itertools import combinations

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = np.asarray(sizes, dtype=np.float64)
    n = len(sizes)
    bounds = [-1, *checkpoints, n - 1]
    steps = []
    for k in range(len(bounds) - 1):
        start, end = bounds[k], bounds[k + 1]
        below = sum(sizes[c] for c in checkpoints if c < start)
        held = sizes[start] if start >= 0 else 0.0
        steps.append(below + held + sizes[start + 1 : end + 1].sum())
    return np.max(steps)


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    return min(lists, key=lambda chosen: (peak_memory(sizes, chosen), -len(chosen)))
