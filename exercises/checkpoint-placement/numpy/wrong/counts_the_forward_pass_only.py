"""Measures the forward pass only, where at most two activations besides the checkpoints are held.

Breaks: one_checkpoint
"""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    kept = set(checkpoints)
    peak = 0
    for i in range(len(sizes)):
        held = {c for c in kept if c < i} | {i}
        if i > 0:
            held.add(i - 1)
        peak = max(peak, sum(sizes[a] for a in held))
    return peak


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    return min(lists, key=lambda c: peak_memory(sizes, c))
