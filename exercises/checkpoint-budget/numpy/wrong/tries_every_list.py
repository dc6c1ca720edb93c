"""Tries all 2^(n-1) checkpoint lists: right on small networks, out of time on large ones.

Breaks: large_networks
"""

from itertools import combinations


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    peak = kept = 0
    for b, e in zip(starts, ends):
        peak = max(peak, kept + sum(sizes[max(b, 0) : e + 1]))
        if b >= 0:
            kept += sizes[b]
    return int(peak)


def recompute_cost(costs, checkpoints):
    n = len(costs)
    starts = [-1] + list(checkpoints)
    ends = list(checkpoints) + [n - 1]
    return int(sum(sum(costs[b + 1 : e]) for b, e in zip(starts, ends)))


def plan_checkpoints(sizes, costs, budget):
    n = len(sizes)
    best = None
    for k in range(n):
        for chosen in combinations(range(n - 1), k):
            plan = list(chosen)
            if peak_memory(sizes, plan) <= budget:
                cost = recompute_cost(costs, plan)
                if best is None or cost < best[0]:
                    best = (cost, plan)
    return None if best is None else best[1]
