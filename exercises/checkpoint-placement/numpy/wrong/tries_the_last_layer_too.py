"""Enumerates subsets of all n layers, the last one included, and keeps the last of equal peaks.

Breaks: tiny_networks
"""


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
    best, best_peak = [], None
    for mask in range(2**n):
        chosen = [i for i in range(n) if mask >> i & 1]
        peak = peak_memory(sizes, chosen)
        if best_peak is None or peak <= best_peak:
            best, best_peak = chosen, peak
    return best
