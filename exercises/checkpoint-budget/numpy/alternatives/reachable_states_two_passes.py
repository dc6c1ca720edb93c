"""Two passes: a forward pass collects the sets of memory kept that can reach each
boundary, then a backward pass solves only those states, in dicts."""

from itertools import accumulate


def peak_memory(sizes, checkpoints):
    n = len(sizes)
    prefix = [0, *accumulate(int(s) for s in sizes)]
    kept = [0, 0, *accumulate(int(sizes[c]) for c in checkpoints)]
    segments = zip([-1, *checkpoints], [*checkpoints, n - 1])
    return max(kept[j] + prefix[e + 1] - prefix[max(b, 0)] for j, (b, e) in enumerate(segments))


def recompute_cost(costs, checkpoints):
    n = len(costs)
    prefix = [0, *accumulate(int(c) for c in costs)]
    segments = zip([-1, *checkpoints], [*checkpoints, n - 1])
    return sum(prefix[e] - prefix[b + 1] for b, e in segments)


def plan_checkpoints(sizes, costs, budget):
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)
    prefix = [0, *accumulate(sizes)]
    cost_prefix = [0, *accumulate(costs)]

    def start_size(b):
        return sizes[b] if b >= 0 else 0

    def fits(b, e, kept):
        return kept + start_size(b) + prefix[e + 1] - prefix[b + 1] <= budget

    # Forward: which memory-kept values can each boundary be reached with?
    reachable = {b: set() for b in range(-1, n - 1)}
    reachable[-1].add(0)
    for b in range(-1, n - 1):
        for kept in reachable[b]:
            for e in range(b + 1, n - 1):
                if not fits(b, e, kept):
                    break
                reachable[e].add(kept + start_size(b))

    # Backward: the least cost from each reachable state to the end.
    best = {}
    for b in range(n - 2, -2, -1):
        for kept in reachable[b]:
            options = []
            for e in range(b + 1, n):
                if not fits(b, e, kept):
                    break
                rerun = cost_prefix[e] - cost_prefix[b + 1]
                if e == n - 1:
                    options.append((rerun, e))
                elif (e, kept + start_size(b)) in best:
                    options.append((rerun + best[(e, kept + start_size(b))][0], e))
            if options:
                best[(b, kept)] = min(options)
    if (-1, 0) not in best:
        return None
    plan, b, kept = [], -1, 0
    while True:
        e = best[(b, kept)][1]
        if e == n - 1:
            return plan
        plan.append(e)
        kept += start_size(b)
        b = e
