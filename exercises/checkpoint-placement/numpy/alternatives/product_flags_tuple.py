"""itertools.product over on/off flags, itertools.compress to read them; returns a tuple."""

from itertools import compress, product


def peak_memory(sizes, checkpoints):
    bounds = (-1, *checkpoints)
    ends = (*checkpoints, len(sizes) - 1)
    return max(
        sum(sizes[c] for c in checkpoints if c < b) + sum(sizes[i] for i in range(max(b, 0), e + 1))
        for b, e in zip(bounds, ends)
    )


def best_checkpoints(sizes):
    layers = range(len(sizes) - 1)
    every_flags = product((False, True), repeat=len(layers))
    candidates = (tuple(compress(layers, flags)) for flags in every_flags)
    return min(candidates, key=lambda chosen: peak_memory(sizes, list(chosen)))
