"""Tests for the PyTorch track of pairwise-distances.

Inputs come from a generator seeded with the test's seed, so the reference and the
submission see the same points. Their coordinates are of moderate size (normal, scale at
most 2.5, clipped to [-10, 10]) with d <= 16 in every test that compares values: inside
the statement's range (coordinates in [-10, 10], d <= 16), over all of which its
tolerances admit the expansion, the direct difference and ``torch.cdist``, in float32 and
float64 (the float32 atol covers the expansion's rounding on equal points with squared
lengths up to 3,200: see exercise.toml).

Two rules need more than the result:
- "the inputs are left alone": ``t.changed_in_place`` compares the tensors the call got
  (clones) with the test's own after the call. Its cases have n = m = d, so that a shape
  bug (which the earlier tests report) cannot make this test fail for another reason;
- "memory stays far below an (n, m, d) array", with the NumPy track's limit (half of the
  (n, m, d) array, 2,097,152 bytes) checked in two parts, since ``tracemalloc`` does not
  see torch's CPU allocations: a ``TorchDispatchMode`` sees the result of every operation
  run during the call and keeps the size of the largest storage among them, and
  ``tracemalloc`` measures the peak of what NumPy and Python objects take (a detour
  through NumPy, or lists made from the inputs).
"""

import tracemalloc

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from graders.sandbox.testing import Case, example, test

# The statement's tolerances (exercise.toml's [tolerance]).
TOLERANCES = {"float64": (1e-9, 1e-9), "float32": (1e-4, 1e-2)}

# The memory test's sizes (the statement's): its (n, m, d) float64 array takes 4,194,304
# bytes, and a call may hold half of that at once on top of its inputs.
MEMORY_N, MEMORY_M, MEMORY_D = 64, 64, 128


class LargestTensor(TorchDispatchMode):
    """Keeps the bytes of the largest storage any operation's result has."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for item in out if isinstance(out, tuple | list) else (out,):
            if isinstance(item, torch.Tensor):
                self.largest = max(self.largest, item.untyped_storage().nbytes())
        return out


def points(rng, n, d, dtype, scale=1.0):
    """n points in d dimensions, normal with the given scale, coordinates in [-10, 10]."""
    return torch.from_numpy(np.clip(scale * rng.standard_normal((n, d)), -10, 10)).to(dtype)


def distances(t, x, y):
    return {"distances": t.call("pairwise_sq_dists", x, y)}


def dtype_of(result):
    """The result's dtype as text (what it is instead, when it is no tensor)."""
    if isinstance(result, torch.Tensor):
        return str(result.dtype)
    return f"no tensor: {type(result).__name__}"


def smallest_is_not_negative(result):
    try:
        return bool((torch.as_tensor(result) >= 0).all())
    except Exception:  # not a tensor of numbers: the earlier tests say what is wrong
        return False


@example("the worked example", hint=2, tolerances=TOLERANCES, exact_dtype=True)
def worked_example(t):
    x = torch.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    y = torch.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    return distances(t, x, y)


@example("one float32 point against two", hint=2, tolerances=TOLERANCES, exact_dtype=True)
def float32_example(t):
    x = torch.tensor([[1.0, 2.0]])
    y = torch.tensor([[1.0, 2.0], [4.0, 6.0]])
    return distances(t, x, y)


@test("the result has the inputs' dtype", hint=2, tolerances=TOLERANCES, reveal="summary")
def dtype_kept(t):
    rng = np.random.default_rng(t.seed)
    cases = [
        Case(f"{name}, 4 points against 4 in 5 dimensions", x=x, y=y)
        for name, dtype in (("float32", torch.float32), ("float64", torch.float64))
        for x, y in [(points(rng, 4, 5, dtype), points(rng, 4, 5, dtype))]
    ]
    return t.cases(
        cases, lambda x, y: {"dtype of the result": dtype_of(t.call("pairwise_sq_dists", x, y))}
    )


@test(
    "each entry is the squared distance between a row of x and a row of y",
    hint=2,
    tolerances=TOLERANCES,
    reveal="summary",
)
def values(t):
    rng = np.random.default_rng(t.seed)
    table = [
        ("float64, 3 points against 5 in 4 dimensions", 3, 5, 4, torch.float64, 1.0),
        ("float64, 6 points against 2 in 16 dimensions", 6, 2, 16, torch.float64, 2.0),
        ("float64, 7 points against 7 in 2 dimensions", 7, 7, 2, torch.float64, 1.0),
        ("float32, 5 points against 4 in 3 dimensions", 5, 4, 3, torch.float32, 1.0),
        ("float32, 4 points against 9 in 12 dimensions", 4, 9, 12, torch.float32, 2.5),
    ]
    cases = [
        Case(label, x=points(rng, n, d, dtype, s), y=points(rng, m, d, dtype, s))
        for label, n, m, d, dtype, s in table
    ]
    return t.cases(cases, lambda x, y: distances(t, x, y))


@test(
    "one point or one dimension still gives an (n, m) table",
    hint=2,
    tolerances=TOLERANCES,
    exact_dtype=True,
    reveal="summary",
)
def small_sizes(t):
    rng = np.random.default_rng(t.seed)
    table = [
        ("one point in x (n = 1)", 1, 5, 3, torch.float64),
        ("one point in y (m = 1)", 4, 1, 3, torch.float32),
        ("one dimension (d = 1)", 4, 3, 1, torch.float64),
        ("one point against one, in one dimension", 1, 1, 1, torch.float32),
        ("one point against one, in 6 dimensions", 1, 1, 6, torch.float64),
    ]
    cases = [
        Case(label, x=points(rng, n, d, dtype), y=points(rng, m, d, dtype))
        for label, n, m, d, dtype in table
    ]
    return t.cases(cases, lambda x, y: distances(t, x, y))


@test(
    "no entry is negative, even for equal or nearly equal points",
    hint=3,
    tolerances=TOLERANCES,
    reveal="summary",
)
def not_negative(t):
    rng = np.random.default_rng(t.seed)
    cases = []
    for name, dtype, shift in (("float32", torch.float32, 1e-5), ("float64", torch.float64, 1e-10)):
        x = points(rng, 32, 8, dtype, 2.5)
        near = x + shift * points(rng, 32, 8, dtype)
        y = torch.cat([x.flip(0), near])  # every point of x twice, once shifted a little
        cases.append(Case(f"{name}, every point of x again in y", x=x, y=y))

    def check(x, y):
        return {"no entry is negative": smallest_is_not_negative(t.call("pairwise_sq_dists", x, y))}

    return t.cases(cases, check)


@test("x and y are left unchanged", hint=3, tolerances=TOLERANCES, reveal="summary")
def inputs_unchanged(t):
    rng = np.random.default_rng(t.seed)
    cases = [
        Case(f"{name}, 3 points against 3 in 3 dimensions", x=x, y=y)
        for name, dtype in (("float64", torch.float64), ("float32", torch.float32))
        for x, y in [(points(rng, 3, 3, dtype), points(rng, 3, 3, dtype))]
    ]

    def check(x, y):
        t.call("pairwise_sq_dists", x, y)
        return {"changed in place": t.changed_in_place("x", "y")}

    return t.cases(cases, check)


def memory_verdict(size, limit, what):
    """What the learner reads: the size and the limit when the size is over it."""
    if size < limit:
        return "under the limit"
    return f"{size:,} bytes {what}, over the {limit:,} allowed (half of an (n, m, d) array)"


@test("memory stays far below an (n, m, d) array", hint=1, tolerances=TOLERANCES, reveal="summary")
def no_big_intermediate(t):
    rng = np.random.default_rng(t.seed)
    x = points(rng, MEMORY_N, MEMORY_D, torch.float64)
    y = points(rng, MEMORY_M, MEMORY_D, torch.float64)
    limit = MEMORY_N * MEMORY_M * MEMORY_D * x.element_size() // 2
    with LargestTensor():  # the first use of a dispatch mode may import modules: not here
        torch.zeros(1).add(1)
    watch = LargestTensor()
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start(1)
    tracemalloc.clear_traces()
    tracemalloc.reset_peak()
    try:
        with watch:
            t.call("pairwise_sq_dists", x, y)
        measured = tracemalloc.is_tracing()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        if started and tracemalloc.is_tracing():
            tracemalloc.stop()
    if not measured:
        outside = "not measured: tracemalloc was stopped during the call"
    else:
        outside = memory_verdict(peak, limit, "at the peak on top of the inputs")
    return {
        "largest tensor": memory_verdict(watch.largest, limit, "in one tensor"),
        "peak memory outside tensors (NumPy arrays and Python objects)": outside,
    }
