"""Greedy: adds the checkpoint that lowers the peak most until the list fits, then the costliest layers that still fit.

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
    while peak_memory(sizes, plan) > budget:
        free = [i for i in range(n - 1) if i not in plan]
        if not free:
            return None
        best = min(free, key=lambda i: (peak_memory(sizes, sorted(plan + [i])), -costs[i]))
        plan = sorted(plan + [best])
    for layer in sorted(range(n - 1), key=lambda i: -costs[i]):
        if layer not in plan and peak_memory(sizes, sorted(plan + [layer])) <= budget:
            plan = sorted(plan + [layer])
    return plan
