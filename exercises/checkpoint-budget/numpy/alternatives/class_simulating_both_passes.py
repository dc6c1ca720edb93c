"""A class per network; peak_memory simulates both passes with sets of held activations;
a plain-Python table over every (boundary, memory kept)."""


class Network:
    def __init__(self, sizes, costs=None):
        self.sizes = [int(s) for s in sizes]
        self.costs = None if costs is None else [int(c) for c in costs]
        self.n = len(self.sizes)

    def memory(self, activations):
        return sum(self.sizes[i] for i in activations if i >= 0)

    def peak(self, checkpoints):
        kept = set()
        highest = 0
        for i in range(self.n):  # forward
            highest = max(highest, self.memory(kept | {i - 1, i}))
            if i in checkpoints:
                kept.add(i)
        starts = [-1, *checkpoints]
        ends = [*checkpoints, self.n - 1]
        for b, e in reversed(list(zip(starts, ends))):  # backward, last segment first
            kept.discard(b)
            held = kept | {b} | set(range(b + 1, e + 1))  # e stands for its gradient
            highest = max(highest, self.memory(held))
        return highest

    def cost(self, checkpoints):
        starts = [-1, *checkpoints]
        ends = [*checkpoints, self.n - 1]
        return sum(self.costs[i] for b, e in zip(starts, ends) for i in range(b + 1, e))

    def plan(self, budget):
        n, sizes, costs = self.n, self.sizes, self.costs
        inf = float("inf")
        best = {b: [inf] * (budget + 1) for b in range(-1, n - 1)}
        pick = {b: [None] * (budget + 1) for b in range(-1, n - 1)}
        for b in range(n - 2, -2, -1):
            start = sizes[b] if b >= 0 else 0
            for kept in range(budget + 1):
                memory, rerun = kept + start, 0
                for e in range(b + 1, n):
                    memory += sizes[e]
                    if memory > budget:
                        break
                    rest = 0 if e == n - 1 else best[e][kept + start]
                    if rerun + rest < best[b][kept]:
                        best[b][kept], pick[b][kept] = rerun + rest, e
                    rerun += costs[e]
        if best[-1][0] == inf:
            return None
        plan, b, kept = [], -1, 0
        while pick[b][kept] != n - 1:
            e = pick[b][kept]
            kept += sizes[b] if b >= 0 else 0
            plan.append(e)
            b = e
        return plan


def peak_memory(sizes, checkpoints):
    return Network(sizes).peak(checkpoints)


def recompute_cost(costs, checkpoints):
    return Network([0] * len(costs), costs).cost(checkpoints)


def plan_checkpoints(sizes, costs, budget):
    return Network(sizes, costs).plan(budget)
