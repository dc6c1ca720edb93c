"""Pads with `sizes + [0]` so that sizes[-1] is 0: on a NumPy array that adds 0 to every entry instead of appending.

Breaks: small_networks
"""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    padded = sizes + [0]  # a list grows by one item; an array stays as it is
    n = len(sizes)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    peak = 0
    for start, end in zip(starts, ends):
        below = sum(padded[c] for c in checkpoints if c < start)
        held = sum(padded[i] for i in range(start, end + 1))
        peak = max(peak, below + held)
    return peak


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    return min(lists, key=lambda c: peak_memory(sizes, c))
