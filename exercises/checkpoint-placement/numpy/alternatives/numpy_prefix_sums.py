"""NumPy prefix sums: every segment's memory at once; the peak comes back as a NumPy integer."""

from itertools import combinations

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = np.asarray(sizes, dtype=np.int64)
    n = len(sizes)
    cuts = np.asarray(checkpoints, dtype=np.int64)
    prefix = np.concatenate([[0], np.cumsum(sizes)])  # prefix[i] = sizes[0] + ... + sizes[i-1]
    starts = np.concatenate([[-1], cuts])
    ends = np.concatenate([cuts, [n - 1]])
    segment = prefix[ends + 1] - prefix[np.maximum(starts, 0)]
    # checkpoints strictly below each start: 0, 0, then a running sum of the checkpoint sizes
    kept = np.concatenate([[0, 0], np.cumsum(sizes[cuts])])[: len(starts)]
    return np.max(segment + kept)  # an np.int64


def best_checkpoints(sizes):
    n = len(sizes)
    best, best_peak = [], peak_memory(sizes, [])
    for k in range(1, n):
        for chosen in combinations(range(n - 1), k):
            peak = peak_memory(sizes, list(chosen))
            if peak < best_peak:
                best, best_peak = list(chosen), peak
    return best
