"""Backtracking that stores the shared working list itself as the best, so it returns whatever that list holds at the end.

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
    current = []
    best = {"peak": peak_memory(sizes, []), "list": []}

    def explore(next_layer):
        if next_layer == n - 1:
            peak = peak_memory(sizes, current)
            if peak < best["peak"]:
                best["peak"], best["list"] = peak, current  # not a copy
            return
        explore(next_layer + 1)
        current.append(next_layer)
        explore(next_layer + 1)
        current.pop()

    explore(0)
    return best["list"]
