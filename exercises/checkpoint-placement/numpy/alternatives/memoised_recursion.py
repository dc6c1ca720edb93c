"""Exact search by memoised recursion on (segment start, memory of the checkpoints below it)."""

from functools import cache


def peak_memory(sizes, checkpoints):
    peak, below, start = 0, 0, -1
    for end in [*checkpoints, len(sizes) - 1]:
        peak = max(peak, below + sum(sizes[max(start, 0) : end + 1]))
        below += sizes[start] if start >= 0 else 0
        start = end
    return peak


def best_checkpoints(sizes):
    sizes = tuple(int(s) for s in sizes)
    n = len(sizes)

    @cache
    def solve(start, below):
        """(smallest peak from here on, the checkpoints after start that reach it)."""
        # Last segment: no more checkpoints.
        best = (below + sum(sizes[max(start, 0) :]), ())
        held = below + (sizes[start] if start >= 0 else 0)
        for end in range(start + 1, n - 1):  # the next checkpoint
            here = below + sum(sizes[max(start, 0) : end + 1])
            rest, later = solve(end, held)
            candidate = (max(here, rest), (end, *later))
            if candidate[0] < best[0]:
                best = candidate
        return best

    return list(solve(-1, 0)[1])
