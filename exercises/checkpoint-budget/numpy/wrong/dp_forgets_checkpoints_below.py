"""The plan's memory check counts each segment alone, without the checkpoints kept below it.

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
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)
    # reach[b + 1]: memory kept below boundary b -> (least cost so far, previous state)
    reach = [{} for _ in range(n)]
    reach[0][0] = (0, None)
    best = None
    for b in range(-1, n - 1):
        start = sizes[b] if b >= 0 else 0
        for kept, (cost, _) in reach[b + 1].items():
            memory = start  # the segment on its own
            rerun = 0
            for e in range(b + 1, n):
                memory += sizes[e]
                if memory > budget:
                    break
                if e == n - 1:
                    if best is None or cost + rerun < best[0]:
                        best = (cost + rerun, b, kept)
                else:
                    old = reach[e + 1].get(kept + start)
                    if old is None or cost + rerun < old[0]:
                        reach[e + 1][kept + start] = (cost + rerun, (b, kept))
                rerun += costs[e]
    if best is None:
        return None
    plan = []
    _, b, kept = best
    while b >= 0:
        plan.append(b)
        b, kept = reach[b + 1][kept][1]
    return plan[::-1]
