"""Returns a list of True/False flags, one per candidate layer, instead of the layer indices.

Breaks: tiny_networks
"""

from itertools import product


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
    masks = [list(m) for m in product([False, True], repeat=n - 1)]
    best = min(masks, key=lambda m: peak_memory(sizes, [i for i, on in enumerate(m) if on]))
    return best
