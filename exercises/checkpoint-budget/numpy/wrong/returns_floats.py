"""Right peaks, costs and plans, but the peak and the cost come back as floats (they are
summed from float copies of the inputs), where the statement asks for integers.

Breaks: edge_cases
"""

import numpy as np


def peak_memory(sizes, checkpoints):
    sizes = np.asarray(sizes, dtype=float)
    steps = []
    kept_below = 0  # the checkpoints kept below the current segment
    for b, e in zip([-1, *checkpoints], [*checkpoints, len(sizes) - 1]):
        start = sizes[b] if b >= 0 else 0  # the network input (b = -1) is not counted
        # Going back through layers b+1 .. e holds activation b, the rebuilt activations
        # b+1 .. e-1 and the gradient arriving at e, on top of the checkpoints below b.
        steps.append(kept_below + start + sum(sizes[i] for i in range(b + 1, e + 1)))
        kept_below += start
    # While layer i runs, the forward pass holds the checkpoints below i, activation i - 1
    # and activation i: never more than the backward step of the segment holding i. So
    # the largest backward step is the peak.
    return max(steps)


def recompute_cost(costs, checkpoints):
    costs = np.asarray(costs, dtype=float)
    segments = zip([-1, *checkpoints], [*checkpoints, len(costs) - 1])
    # Going back through b+1 .. e re-runs b+1 .. e-1: the last layer needs only its input
    # (rebuilt) and the gradient arriving at its output.
    return sum(sum(costs[b + 1 : e]) for b, e in segments)


def plan_checkpoints(sizes, costs, budget):
    """A checkpoint list of least recompute cost among those whose peak memory is at most
    budget, or None when no list fits."""
    n = len(sizes)
    # best[b + 1][P]: the least cost of going back through every segment from boundary b
    # on, when the checkpoints below b take P units of memory (inf: that cannot fit).
    # first_end[b + 1][P]: the end of the segment starting at b in such a best plan.
    best = np.full((n, budget + 1), np.inf)
    first_end = np.zeros((n, budget + 1), int)
    # A row only depends on the rows after it, so fill the rows from the end.
    for row in reversed(range(n)):
        b = row - 1  # the boundary of this row: -1 (the input), then 0 .. n - 2
        best_here, end_here = best[row], first_end[row]
        start = sizes[b] if b >= 0 else 0  # the network input (b = -1) is not counted
        memory = start  # of the segment b+1 .. e: sizes[b] + ... + sizes[e], on top of P
        rerun = 0  # the costs of layers b+1 .. e-1
        for e in range(b + 1, n):
            memory += sizes[e]
            if memory > budget:
                break  # sizes are non-negative: longer segments need even more
            room = budget - memory  # the segment fits for every P from 0 to room
            # Nothing comes after the last segment. Otherwise e becomes the next boundary,
            # with P + sizes[b] kept below it.
            last = e == n - 1
            rest = np.zeros(room + 1) if last else best[e + 1][start : start + room + 1]
            # One array operation for all P at once: the NumPy part of the programme.
            total = rerun + rest
            so_far = best_here[: room + 1]  # a view: writing to it updates best
            better = total < so_far  # strict: among equal costs the shortest segment stays
            so_far[better] = total[better]
            end_here[: room + 1][better] = e
            rerun += costs[e]

    if best[0][0] == np.inf:
        return None
    # Follow the choices from the input, with nothing kept below it.
    plan = []
    b, kept = -1, 0
    while True:
        e = first_end[b + 1][kept]
        if e == n - 1:
            return plan
        plan.append(int(e))
        kept += sizes[b] if b >= 0 else 0
        b = e
