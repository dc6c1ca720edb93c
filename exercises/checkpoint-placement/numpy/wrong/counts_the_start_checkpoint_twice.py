"""Counts the segment's own start checkpoint among the kept ones (c <= start) and again in the segment.

Breaks: one_checkpoint
"""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    peak = 0
    for start, end in zip(starts, ends):
        kept = sum(sizes[c] for c in checkpoints if c <= start)
        peak = max(peak, kept + sum(sizes[max(start, 0) : end + 1]))
    return peak


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    return min(lists, key=lambda c: peak_memory(sizes, c))
