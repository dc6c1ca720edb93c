"""Top-down recursion over (segment start, memory kept below it) with functools.cache."""

from functools import cache
from itertools import pairwise


def peak_memory(sizes, checkpoints):
    sizes = [0, *(int(s) for s in sizes)]  # shifted by one: sizes[0] is the input
    bounds = [-1, *checkpoints, len(sizes) - 2]
    peak = kept = 0
    for b, e in pairwise(bounds):
        peak = max(peak, kept + sum(sizes[b + 1 : e + 2]))
        kept += sizes[b + 1]
    return peak


def recompute_cost(costs, checkpoints):
    bounds = [-1, *checkpoints, len(costs) - 1]
    return sum(int(c) for b, e in pairwise(bounds) for c in costs[b + 1 : e])


def plan_checkpoints(sizes, costs, budget):
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)

    @cache
    def best(b, kept):
        """(least cost from boundary b on, end of the first segment), or None."""
        start = sizes[b] if b >= 0 else 0
        found = None
        memory, rerun = kept + start, 0
        for e in range(b + 1, n):
            memory += sizes[e]
            if memory > budget:
                break
            if e == n - 1:
                total = rerun
            else:
                rest = best(e, kept + start)
                total = None if rest is None else rerun + rest[0]
            if total is not None and (found is None or total < found[0]):
                found = (total, e)
            rerun += costs[e]
        return found

    if best(-1, 0) is None:
        return None
    plan, b, kept = [], -1, 0
    while True:
        e = best(b, kept)[1]
        if e == n - 1:
            return plan
        plan.append(e)
        kept += sizes[b] if b >= 0 else 0
        b = e
