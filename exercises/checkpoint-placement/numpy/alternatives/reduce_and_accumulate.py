"""functools.reduce folds the segments; itertools.accumulate gives the checkpoints held below."""

from functools import reduce
from itertools import accumulate, chain, combinations


def peak_memory(sizes, checkpoints):
    starts = [-1, *checkpoints]
    ends = [*checkpoints, len(sizes) - 1]
    below = list(accumulate((sizes[s] if s >= 0 else 0 for s in starts), initial=0))
    return reduce(
        lambda peak, j: max(peak, below[j] + sum(sizes[max(starts[j], 0) : ends[j] + 1])),
        range(len(starts)),
        0,
    )


def best_checkpoints(sizes):
    n = len(sizes)
    every = chain.from_iterable(combinations(range(n - 1), k) for k in range(n))
    scored = ((peak_memory(sizes, c), c) for c in every)
    return list(reduce(lambda a, b: b if b[0] < a[0] else a, scored)[1])
