"""Counts the network input: for the first segment sizes[-1] reads the last activation.

Breaks: one_checkpoint
"""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    peak = 0
    for start, end in zip(starts, ends):
        below = sum(sizes[c] for c in checkpoints if c < start)
        held = sum(sizes[i] for i in range(start, end + 1))  # i = -1 is sizes[-1]
        peak = max(peak, below + held)
    return peak


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    return min(lists, key=lambda c: peak_memory(sizes, c))
