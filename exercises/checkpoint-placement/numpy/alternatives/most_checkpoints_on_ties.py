"""Among the lists with the smallest peak, returns one with the most checkpoints."""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    steps = []
    previous = -1
    for end in [*checkpoints, n - 1]:
        below = sum(sizes[c] for c in checkpoints if c < previous)
        steps.append(below + sum(sizes[i] for i in range(previous, end + 1) if i >= 0))
        previous = end
    return max(steps)


def best_checkpoints(sizes):
    n = len(sizes)
    scored = [
        (peak_memory(sizes, list(c)), -len(c), list(c))
        for k in range(n)
        for c in combinations(range(n - 1), k)
    ]
    return min(scored)[2]
