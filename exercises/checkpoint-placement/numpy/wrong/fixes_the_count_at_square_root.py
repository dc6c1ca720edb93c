"""Searches the positions, but only of about sqrt(n) - 1 checkpoints, as if the count were fixed.

Breaks: equal_sizes
"""

import math
from itertools import combinations


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
    k = max(0, round(math.sqrt(n)) - 1)
    return min(
        (list(c) for c in combinations(range(n - 1), k)), key=lambda c: peak_memory(sizes, c)
    )
