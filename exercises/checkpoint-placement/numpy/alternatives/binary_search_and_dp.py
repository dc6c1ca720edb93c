"""Binary search on the peak, with a dynamic programme that checks whether a peak is reachable."""

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = [int(s) for s in sizes]
    starts = [-1, *checkpoints]
    ends = [*checkpoints, len(sizes) - 1]
    below = [0] * len(starts)
    for j in range(2, len(starts)):
        below[j] = below[j - 1] + sizes[starts[j - 1]]
    return max(below[j] + sum(sizes[max(starts[j], 0) : ends[j] + 1]) for j in range(len(starts)))


def plan_within(sizes, limit):
    """Checkpoints whose peak is at most limit, or None. kept[b] is the least memory of the
    checkpoints held below boundary b over all ways to reach b; less is always better."""
    n = len(sizes)
    prefix = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    inf = float("inf")
    kept = {-1: 0}
    came_from = {}
    for b in range(-1, n - 1):
        if kept.get(b, inf) == inf:
            continue
        for e in range(b + 1, n):
            step = kept[b] + prefix[e + 1] - prefix[max(b, 0)]
            if step > limit:
                continue
            if e == n - 1:
                if "end" not in came_from:
                    came_from["end"] = b
                continue
            after = kept[b] + (sizes[b] if b >= 0 else 0)
            if after < kept.get(e, inf):
                kept[e] = after
                came_from[e] = b
    if "end" not in came_from:
        return None
    chosen, b = [], came_from["end"]
    while b != -1:
        chosen.append(b)
        b = came_from[b]
    return chosen[::-1]


def best_checkpoints(sizes):
    sizes = [int(s) for s in sizes]
    low, high = 0, sum(sizes)  # the empty list always fits within sum(sizes)
    while low < high:
        middle = (low + high) // 2
        if plan_within(sizes, middle) is None:
            low = middle + 1
        else:
            high = middle
    return plan_within(sizes, low)
