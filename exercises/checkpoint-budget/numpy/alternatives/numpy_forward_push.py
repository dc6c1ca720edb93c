"""NumPy, forward: pushes a row of least costs (one entry per memory kept) from each
boundary to the boundaries after it; the plan holds NumPy integers."""

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = np.asarray(sizes)
    starts = np.array([-1, *checkpoints])
    ends = np.array([*checkpoints, len(sizes) - 1])
    steps = [
        sizes[checkpoints][: max(i - 1, 0)].sum() + sizes[max(b, 0) : e + 1].sum()
        for i, (b, e) in enumerate(zip(starts, ends))
    ]
    return max(steps)


def recompute_cost(costs, checkpoints):
    costs = np.asarray(costs)
    starts = np.array([-1, *checkpoints])
    ends = np.array([*checkpoints, len(costs) - 1])
    return sum(costs[b + 1 : e].sum() for b, e in zip(starts, ends))


def plan_checkpoints(sizes, costs, budget):
    sizes = np.asarray(sizes, dtype=np.int64)
    costs = np.asarray(costs, dtype=np.int64)
    n = len(sizes)
    below = np.concatenate(([0], sizes))  # below[b + 1]: memory of boundary b
    reach = np.full((n, budget + 1), np.inf)  # reach[b + 1][P]: least cost to get there
    came_from = np.full((n, budget + 1), -2, dtype=np.int64)  # the boundary before
    reach[0][0] = 0
    finish = (np.inf, None, None)
    for b in range(-1, n - 1):
        row = reach[b + 1]
        start = int(below[b + 1])
        memory = start
        rerun = 0
        for e in range(b + 1, n):
            memory += int(sizes[e])
            room = budget - memory
            if room < 0:
                break
            totals = row[: room + 1] + rerun
            if e == n - 1:
                p = int(np.argmin(totals))
                if totals[p] < finish[0]:
                    finish = (totals[p], b, p)
            else:
                target = reach[e + 1][start : start + room + 1]
                better = totals < target
                target[better] = totals[better]
                came_from[e + 1][start : start + room + 1][better] = b
            rerun += int(costs[e])
    if finish[1] is None:
        return None
    _, b, kept = finish
    plan = []
    while b >= 0:
        plan.append(np.int64(b))
        previous = int(came_from[b + 1][kept])
        kept -= int(below[previous + 1])
        b = previous
    plan.reverse()
    return plan
