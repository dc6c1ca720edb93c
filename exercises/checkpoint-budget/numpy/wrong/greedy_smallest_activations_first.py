"""Greedy: checkpoints the smallest activations first, keeping each while the list still fits.

Breaks: edge_cases
"""


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
    plan = []
    for layer in sorted(range(n - 1), key=lambda i: (sizes[i], -costs[i])):
        trial = sorted(plan + [layer])
        if peak_memory(sizes, trial) <= budget:
            plan = trial
    return plan if peak_memory(sizes, plan) <= budget else None
