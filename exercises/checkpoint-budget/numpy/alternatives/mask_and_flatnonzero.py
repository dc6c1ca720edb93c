"""Marks the checkpoints in a boolean mask while walking back the choices of a dict-based
table, and returns tuple(np.flatnonzero(mask)); measures with while loops."""

import numpy as np


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    marks = [*checkpoints, n - 1]
    peak, kept, b, j = 0, 0, -1, 0
    while j < len(marks):
        e = marks[j]
        held = kept
        i = max(b, 0)
        while i <= e:
            held += sizes[i]
            i += 1
        peak = max(peak, held)
        if b >= 0:
            kept += sizes[b]
        b = e
        j += 1
    return peak


def recompute_cost(costs, checkpoints):
    mask = np.ones(len(costs), dtype=bool)
    mask[-1] = False  # the last layer is never run again
    mask[np.asarray(checkpoints, dtype=int)] = False
    return np.asarray(costs)[mask].sum()


def plan_checkpoints(sizes, costs, budget):
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)
    table = {}  # (b, kept) -> (least cost from b on, end of the segment starting at b)
    for b in range(n - 2, -2, -1):
        start = sizes[b] if b >= 0 else 0
        for kept in range(budget + 1):
            memory, rerun, found = kept + start, 0, None
            for e in range(b + 1, n):
                memory += sizes[e]
                if memory > budget:
                    break
                after = 0 if e == n - 1 else table.get((e, kept + start), (None,))[0]
                if after is not None and (found is None or rerun + after < found[0]):
                    found = (rerun + after, e)
                rerun += costs[e]
            if found is not None:
                table[(b, kept)] = found
    if (-1, 0) not in table:
        return None
    mask = np.zeros(n, dtype=bool)
    b, kept = -1, 0
    while table[(b, kept)][1] != n - 1:
        e = table[(b, kept)][1]
        mask[e] = True
        kept += sizes[b] if b >= 0 else 0
        b = e
    return tuple(np.flatnonzero(mask))
