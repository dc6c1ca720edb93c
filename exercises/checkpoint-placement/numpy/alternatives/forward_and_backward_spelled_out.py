"""Computes the forward moments and the backward steps separately and takes the largest of all."""

from itertools import combinations


def forward_moments(sizes, checkpoints):
    for i in range(len(sizes)):
        held = {c for c in checkpoints if c < i}
        if i >= 1:
            held.add(i - 1)  # the input of layer i (a set: counted once even if a checkpoint)
        held.add(i)
        yield sum(sizes[a] for a in held)


def backward_steps(sizes, checkpoints):
    bounds = [-1, *checkpoints]
    ends = [*checkpoints, len(sizes) - 1]
    for b, e in zip(bounds, ends):
        held = {c for c in checkpoints if c < b} | set(range(max(b, 0), e + 1))
        yield sum(sizes[a] for a in held)


def peak_memory(sizes, checkpoints):
    return max(max(forward_moments(sizes, checkpoints)), max(backward_steps(sizes, checkpoints)))


def best_checkpoints(sizes):
    n = len(sizes)
    lists = [list(c) for k in range(n) for c in combinations(range(n - 1), k)]
    peaks = [peak_memory(sizes, c) for c in lists]
    return lists[peaks.index(min(peaks))]
