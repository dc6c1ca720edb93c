"""Shortest path with heapq: states are (boundary, memory kept below it), edges are the
segments that fit, weighted by their recompute cost."""

import heapq


def peak_memory(sizes, checkpoints):
    sizes = [int(s) for s in sizes]
    n = len(sizes)
    peak = 0
    for j, e in enumerate([*checkpoints, n - 1]):
        b = checkpoints[j - 1] if j > 0 else -1
        kept = sum(sizes[c] for c in checkpoints[: max(j - 1, 0)])
        held = kept + (sizes[b] if b >= 0 else 0) + sum(sizes[b + 1 : e + 1])
        peak = max(peak, held)
    return peak


def recompute_cost(costs, checkpoints):
    costs = [int(c) for c in costs]
    rerun = set(range(len(costs) - 1)) - set(checkpoints)
    return sum(costs[i] for i in rerun)


def plan_checkpoints(sizes, costs, budget):
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)
    goal = (n - 1, 0)  # past the last segment; n - 1 is never a checkpoint
    distance = {(-1, 0): 0}
    previous = {}
    queue = [(0, -1, 0)]
    while queue:
        cost, b, kept = heapq.heappop(queue)
        if (b, kept) == goal:
            break
        if cost > distance[(b, kept)]:
            continue  # a stale entry
        start = sizes[b] if b >= 0 else 0
        memory, rerun = kept + start, 0
        for e in range(b + 1, n):
            memory += sizes[e]
            if memory > budget:
                break
            state = goal if e == n - 1 else (e, kept + start)
            if cost + rerun < distance.get(state, float("inf")):
                distance[state] = cost + rerun
                previous[state] = (b, kept)
                heapq.heappush(queue, (cost + rerun, *state))
            rerun += costs[e]
    if goal not in distance:
        return None
    plan = []
    b, kept = previous[goal]
    while b >= 0:
        plan.append(b)
        b, kept = previous[(b, kept)]
    return plan[::-1]
