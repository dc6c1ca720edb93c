"""NumPy: maximises the cost saved (the costs of the checkpointed layers) instead of
minimising the cost; vectorised measures; returns np.array(plan)."""

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = np.asarray(sizes, dtype=np.int64)
    marks = np.asarray(checkpoints, dtype=np.int64)
    starts = np.concatenate(([-1], marks))
    ends = np.concatenate((marks, [len(sizes) - 1]))
    prefix = np.concatenate(([0], np.cumsum(sizes)))
    segment = prefix[ends + 1] - prefix[np.maximum(starts, 0)]
    # Kept below each start: nothing below the input or the first checkpoint, then the
    # running total of the checkpoints before.
    kept = np.concatenate(([0, 0], np.cumsum(sizes[marks])))[: len(starts)]
    return int((kept + segment).max())


def recompute_cost(costs, checkpoints):
    # Every layer but the last runs again, except the checkpoints themselves.
    costs = np.asarray(costs, dtype=np.int64)
    return int(costs[:-1].sum() - costs[np.asarray(checkpoints, dtype=np.int64)].sum())


def plan_checkpoints(sizes, costs, budget):
    sizes = np.asarray(sizes, dtype=np.int64)
    costs = np.asarray(costs, dtype=np.int64)
    n = len(sizes)
    # gain[b + 1][P]: the most cost that checkpoints from boundary b on can save, with P
    # kept below b (-inf: the rest cannot fit).
    gain = np.full((n, budget + 1), -np.inf)
    end = np.zeros((n, budget + 1), dtype=np.int64)
    for b in range(n - 2, -2, -1):
        start = int(sizes[b]) if b >= 0 else 0
        memory = start
        for e in range(b + 1, n):
            memory += int(sizes[e])
            room = budget - memory
            if room < 0:
                break
            if e == n - 1:
                candidate = np.zeros(room + 1)
            else:
                candidate = costs[e] + gain[e + 1][start : start + room + 1]
            better = candidate > gain[b + 1][: room + 1]
            gain[b + 1][: room + 1][better] = candidate[better]
            end[b + 1][: room + 1][better] = e
    if gain[0][0] == -np.inf:
        return None
    plan = []
    b, kept = -1, 0
    while end[b + 1][kept] != n - 1:
        e = int(end[b + 1][kept])
        plan.append(e)
        kept += int(sizes[b]) if b >= 0 else 0
        b = e
    return np.array(plan)
