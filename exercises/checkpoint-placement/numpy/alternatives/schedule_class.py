"""A small Schedule class with segments and a peak property."""

from dataclasses import dataclass
from itertools import chain, combinations


@dataclass(frozen=True)
class Segment:
    start: int  # the checkpoint it is rebuilt from (-1: the network input)
    end: int  # its last layer; the gradient arrives at activation end


class Schedule:
    def __init__(self, sizes, checkpoints):
        self.sizes = list(sizes)
        self.checkpoints = list(checkpoints)
        bounds = [-1, *self.checkpoints]
        ends = [*self.checkpoints, len(self.sizes) - 1]
        self.segments = [Segment(s, e) for s, e in zip(bounds, ends)]

    def backward_step(self, segment):
        kept = sum(self.sizes[c] for c in self.checkpoints if c < segment.start)
        held = range(max(segment.start, 0), segment.end + 1)
        return kept + sum(self.sizes[i] for i in held)

    @property
    def peak(self):
        return max(self.backward_step(s) for s in self.segments)


def peak_memory(sizes, checkpoints):
    return Schedule(sizes, checkpoints).peak


def best_checkpoints(sizes):
    n = len(sizes)
    every = chain.from_iterable(combinations(range(n - 1), k) for k in range(n))
    return list(min(every, key=lambda c: Schedule(sizes, c).peak))
