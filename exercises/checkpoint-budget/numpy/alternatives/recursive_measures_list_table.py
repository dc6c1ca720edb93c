"""Recursive peak_memory and recompute_cost; the plan from a plain-Python list-of-lists
table filled bottom-up, inner loop over the memory kept."""

INF = float("inf")


def peak_memory(sizes, checkpoints, start=-1, kept=0):
    """The largest backward step from the segment starting at boundary `start` on."""
    if start == len(sizes) - 1:
        return 0
    end = checkpoints[0] if checkpoints else len(sizes) - 1
    here = kept + sum(int(s) for s in sizes[max(start, 0) : end + 1])
    below = kept + (int(sizes[start]) if start >= 0 else 0)
    return max(here, peak_memory(sizes, checkpoints[1:], end, below))


def recompute_cost(costs, checkpoints, start=-1):
    if start == len(costs) - 1:
        return 0
    end = checkpoints[0] if checkpoints else len(costs) - 1
    here = sum(int(c) for c in costs[start + 1 : end])
    return here + recompute_cost(costs, checkpoints[1:], end)


def plan_checkpoints(sizes, costs, budget):
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)
    best = [[INF] * (budget + 1) for _ in range(n)]  # best[b + 1][kept]
    choice = [[-1] * (budget + 1) for _ in range(n)]
    for b in range(n - 2, -2, -1):
        start = sizes[b] if b >= 0 else 0
        row, pick = best[b + 1], choice[b + 1]
        memory, rerun = start, 0
        for e in range(b + 1, n):
            memory += sizes[e]
            room = budget - memory
            if room < 0:
                break
            if e == n - 1:
                for kept in range(room + 1):
                    if rerun < row[kept]:
                        row[kept], pick[kept] = rerun, e
            else:
                rest = best[e + 1]
                for kept in range(room + 1):
                    total = rerun + rest[kept + start]
                    if total < row[kept]:
                        row[kept], pick[kept] = total, e
            rerun += costs[e]
    if best[0][0] == INF:
        return None
    plan, b, kept = [], -1, 0
    while choice[b + 1][kept] != n - 1:
        e = choice[b + 1][kept]
        kept += sizes[b] if b >= 0 else 0
        plan.append(e)
        b = e
    return plan
