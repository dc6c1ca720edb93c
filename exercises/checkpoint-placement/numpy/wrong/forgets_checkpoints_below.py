"""Counts only the segment being rebuilt, not the checkpoints kept below it.

Breaks: checkpoints_below
"""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    return max(sum(sizes[max(s, 0) : e + 1]) for s, e in zip(starts, ends))


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    return min(lists, key=lambda c: peak_memory(sizes, c))
