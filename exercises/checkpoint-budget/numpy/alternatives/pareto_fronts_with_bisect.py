"""Forward dynamic programme that keeps, per boundary, only the Pareto front of (memory kept,
cost), searched with bisect; returns a tuple."""

import bisect


def peak_memory(sizes, checkpoints):
    peak = 0
    kept = 0
    previous = -1
    for end in [*checkpoints, len(sizes) - 1]:
        first = max(previous, 0)
        peak = max(peak, kept + sum(int(s) for s in sizes[first : end + 1]))
        if previous >= 0:
            kept += int(sizes[previous])
        previous = end
    return peak


def recompute_cost(costs, checkpoints):
    total = 0
    previous = -1
    for end in [*checkpoints, len(costs) - 1]:
        total += sum(int(c) for c in costs[previous + 1 : end])
        previous = end
    return total


class Front:
    """States (memory kept, cost, back pointer) that no other state beats on both counts:
    sorted by memory kept, so their costs strictly decrease."""

    def __init__(self):
        self.kept, self.cost, self.back = [], [], []

    def add(self, kept, cost, back):
        right = bisect.bisect_right(self.kept, kept)
        if right > 0 and self.cost[right - 1] <= cost:
            return  # a state keeping no more memory costs no more
        left = bisect.bisect_left(self.kept, kept)
        end = left
        while end < len(self.kept) and self.cost[end] >= cost:
            end += 1  # these keep no less memory and cost no less: beaten
        self.kept[left:end] = [kept]
        self.cost[left:end] = [cost]
        self.back[left:end] = [back]

    def back_of(self, kept):
        return self.back[bisect.bisect_left(self.kept, kept)]


def plan_checkpoints(sizes, costs, budget):
    sizes = [int(s) for s in sizes]
    costs = [int(c) for c in costs]
    n = len(sizes)
    fronts = [Front() for _ in range(n)]  # fronts[b + 1]: the states at boundary b
    fronts[0].add(0, 0, None)
    finals = []
    for b in range(-1, n - 1):
        start = sizes[b] if b >= 0 else 0
        front = fronts[b + 1]
        for kept, cost in zip(front.kept, front.cost):
            memory, rerun = kept + start, 0
            for e in range(b + 1, n):
                memory += sizes[e]
                if memory > budget:
                    break
                if e == n - 1:
                    finals.append((cost + rerun, b, kept))
                else:
                    fronts[e + 1].add(kept + start, cost + rerun, (b, kept))
                rerun += costs[e]
    if not finals:
        return None
    _, b, kept = min(finals)
    plan = []
    while b >= 0:
        plan.append(b)
        b, kept = fronts[b + 1].back_of(kept)
    return tuple(reversed(plan))
