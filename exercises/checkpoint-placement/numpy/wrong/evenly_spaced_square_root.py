"""Returns about sqrt(n) evenly spaced checkpoints instead of searching for the best list.

Breaks: equal_sizes
"""

import math


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    peak = 0
    for start, end in zip(starts, ends):
        below = sum(sizes[c] for c in checkpoints if c < start)
        peak = max(peak, below + sum(sizes[max(start, 0) : end + 1]))
    return peak


def best_checkpoints(sizes):
    n = len(sizes)
    length = max(1, round(math.sqrt(n)))  # segments of about sqrt(n) layers
    return list(range(length - 1, n - 1, length))
