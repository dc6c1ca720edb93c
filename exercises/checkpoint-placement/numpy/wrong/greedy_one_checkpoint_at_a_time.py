"""Adds, one at a time, the checkpoint that lowers the peak most, and stops when none lowers it.

Breaks: equal_sizes
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
    chosen = []
    best = peak_memory(sizes, chosen)
    while True:
        trials = [sorted(chosen + [c]) for c in range(n - 1) if c not in chosen]
        if not trials:
            return chosen
        trial = min(trials, key=lambda c: peak_memory(sizes, c))
        if peak_memory(sizes, trial) >= best:
            return chosen
        chosen, best = trial, peak_memory(sizes, trial)
