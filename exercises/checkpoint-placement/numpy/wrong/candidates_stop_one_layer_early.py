"""Tries checkpoints among layers 0 .. n-3 only, never layer n - 2.

Breaks: equal_sizes
"""

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
    lists = [list(c) for k in range(n) for c in combinations(range(n - 2), k)]
    return min(lists, key=lambda c: peak_memory(sizes, c))
