"""NumPy: for each boundary, stacks one row of candidate costs per segment end into a
matrix and takes min and argmin down its columns."""

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = np.asarray(sizes, dtype=np.int64)
    n = len(sizes)
    held = []
    kept = 0
    for b, e in zip([-1, *checkpoints], [*checkpoints, n - 1]):
        held.append(kept + sizes[max(b, 0) : e + 1].sum())
        kept += sizes[b] if b >= 0 else 0
    return np.max(held)


def recompute_cost(costs, checkpoints):
    costs = np.asarray(costs, dtype=np.int64)
    keep = np.zeros(len(costs), dtype=bool)
    keep[list(checkpoints)] = True
    keep[-1] = True  # the last layer never runs again
    return costs[~keep].sum()


def plan_checkpoints(sizes, costs, budget):
    sizes = np.asarray(sizes, dtype=np.int64)
    costs = np.asarray(costs, dtype=np.int64)
    n = len(sizes)
    start_of = np.concatenate(([0], sizes))  # start_of[b + 1]: memory of boundary b
    best = np.full((n + 1, budget + 1), np.inf)
    best[n] = 0.0  # row n: past the last segment, nothing left to pay
    first_end = np.full((n, budget + 1), -1)
    for b in range(n - 2, -2, -1):
        start = int(start_of[b + 1])
        ends = np.arange(b + 1, n)
        memory = start + np.cumsum(sizes[b + 1 :])  # of the segments b+1 .. e
        rerun = np.concatenate(([0], np.cumsum(costs[b + 1 : n - 1])))  # layers b+1 .. e-1
        candidates = np.full((len(ends), budget + 1), np.inf)
        for row, (e, mem, cost) in enumerate(zip(ends, memory, rerun)):
            room = budget - int(mem)
            if room < 0:
                break
            after = best[n] if e == n - 1 else best[e + 1]
            shift = 0 if e == n - 1 else start
            candidates[row, : room + 1] = cost + after[shift : shift + room + 1]
        best[b + 1] = candidates.min(axis=0)
        first_end[b + 1] = ends[candidates.argmin(axis=0)]
    if np.isinf(best[0, 0]):
        return None
    plan, b, kept = [], -1, 0
    while True:
        e = int(first_end[b + 1, kept])
        if e == n - 1:
            return plan
        plan.append(e)
        kept += int(start_of[b + 1])
        b = e
