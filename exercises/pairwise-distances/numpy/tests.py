"""Tests for the NumPy track of pairwise-distances.

Inputs come from a generator seeded with the test's seed, so the reference and the
submission see the same points. Their coordinates are of moderate size (normal, scale at
most 2.5, clipped to [-10, 10]) with d <= 16 in every test that compares values: inside
the statement's range (coordinates in [-10, 10], d <= 16), over all of which its
tolerances admit the expansion and the direct difference, in float32 and float64 (the
float32 atol covers the expansion's rounding on equal points with squared lengths up to
3,200: see exercise.toml).

Two rules need more than the result:
- "the inputs are left alone": ``t.changed_in_place`` compares the arrays the call got
  (copies) with the test's own after the call. Its cases have n = m = d, so that a shape
  bug (which the earlier tests report) cannot make this test fail for another reason;
- "memory stays far below an (n, m, d) array": ``tracemalloc`` traces NumPy's buffers and
  Python's objects, so the peak of the traced memory during the call, less the inputs
  (the copies ``t.call`` makes, alive all through the call), is the most the call held at
  once on top of them. The limit is half of the (n, m, d) array, 2,097,152 bytes: the
  expansion peaks near 0.1 MB, pure Python on lists of the inputs near 0.7 MB (a list of
  every pair of rows near 0.84 MB), an all-pairs broadcast near 8.4 MB. The sizes keep
  the traced loops of the slowest correct style (one element at a time) within the
  exercise's time limits.
"""

import tracemalloc

import numpy as np

from graders.sandbox.testing import Case, example, test

# The statement's tolerances (exercise.toml's [tolerance]).
TOLERANCES = {"float64": (1e-9, 1e-9), "float32": (1e-4, 1e-2)}

# The memory test's sizes (the statement's): its (n, m, d) float64 array takes 4,194,304
# bytes, and a call may hold half of that at once on top of its inputs.
MEMORY_N, MEMORY_M, MEMORY_D = 64, 64, 128


def points(rng, n, d, dtype, scale=1.0):
    """n points in d dimensions, normal with the given scale, coordinates in [-10, 10]."""
    return np.clip(scale * rng.standard_normal((n, d)), -10, 10).astype(dtype)


def distances(t, x, y):
    return {"distances": t.call("pairwise_sq_dists", x, y)}


def dtype_of(result):
    """The result's dtype as text (what it is instead, when it is no array)."""
    if isinstance(result, np.ndarray):
        return str(result.dtype)
    return f"no array: {type(result).__name__}"


def smallest_is_not_negative(result):
    try:
        return bool(np.all(np.asarray(result) >= 0))
    except Exception:  # not an array of numbers: the earlier tests say what is wrong
        return False


@example("the worked example", hint=2, tolerances=TOLERANCES, exact_dtype=True)
def worked_example(t):
    x = np.array([[0.0, 0.0], [1.0, 1.0]])
    y = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    return distances(t, x, y)


@example("one float32 point against two", hint=2, tolerances=TOLERANCES, exact_dtype=True)
def float32_example(t):
    x = np.array([[1.0, 2.0]], dtype=np.float32)
    y = np.array([[1.0, 2.0], [4.0, 6.0]], dtype=np.float32)
    return distances(t, x, y)


@test("the result has the inputs' dtype", hint=2, tolerances=TOLERANCES, reveal="summary")
def dtype_kept(t):
    rng = np.random.default_rng(t.seed)
    cases = [
        Case(f"{dtype.__name__}, 4 points against 4 in 5 dimensions", x=x, y=y)
        for dtype in (np.float32, np.float64)
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
        ("float64, 3 points against 5 in 4 dimensions", 3, 5, 4, np.float64, 1.0),
        ("float64, 6 points against 2 in 16 dimensions", 6, 2, 16, np.float64, 2.0),
        ("float64, 7 points against 7 in 2 dimensions", 7, 7, 2, np.float64, 1.0),
        ("float32, 5 points against 4 in 3 dimensions", 5, 4, 3, np.float32, 1.0),
        ("float32, 4 points against 9 in 12 dimensions", 4, 9, 12, np.float32, 2.5),
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
        ("one point in x (n = 1)", 1, 5, 3, np.float64),
        ("one point in y (m = 1)", 4, 1, 3, np.float32),
        ("one dimension (d = 1)", 4, 3, 1, np.float64),
        ("one point against one, in one dimension", 1, 1, 1, np.float32),
        ("one point against one, in 6 dimensions", 1, 1, 6, np.float64),
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
    for dtype, shift in ((np.float32, 1e-5), (np.float64, 1e-10)):
        x = points(rng, 32, 8, dtype, 2.5)
        near = x + (shift * rng.standard_normal(x.shape)).astype(dtype)
        y = np.concatenate([x[::-1], near])  # every point of x twice, once shifted a little
        cases.append(Case(f"{dtype.__name__}, every point of x again in y", x=x, y=y))

    def check(x, y):
        return {"no entry is negative": smallest_is_not_negative(t.call("pairwise_sq_dists", x, y))}

    return t.cases(cases, check)


@test("x and y are left unchanged", hint=3, tolerances=TOLERANCES, reveal="summary")
def inputs_unchanged(t):
    rng = np.random.default_rng(t.seed)
    cases = [
        Case(f"{dtype.__name__}, 3 points against 3 in 3 dimensions", x=x, y=y)
        for dtype in (np.float64, np.float32)
        for x, y in [(points(rng, 3, 3, dtype), points(rng, 3, 3, dtype))]
    ]

    def check(x, y):
        t.call("pairwise_sq_dists", x, y)
        return {"changed in place": t.changed_in_place("x", "y")}

    return t.cases(cases, check)


def memory_verdict(peak, limit):
    """What the learner reads: the peak and the limit when the peak is over it."""
    if peak < limit:
        return "under the limit"
    return (
        f"{peak:,} bytes at the peak on top of the inputs, over the {limit:,} allowed"
        " (half of an (n, m, d) array)"
    )


@test("memory stays far below an (n, m, d) array", hint=1, tolerances=TOLERANCES, reveal="summary")
def no_big_intermediate(t):
    rng = np.random.default_rng(t.seed)
    x = points(rng, MEMORY_N, MEMORY_D, np.float64)
    y = points(rng, MEMORY_M, MEMORY_D, np.float64)
    limit = MEMORY_N * MEMORY_M * MEMORY_D * x.itemsize // 2
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start(1)
    tracemalloc.clear_traces()
    tracemalloc.reset_peak()
    try:
        t.call("pairwise_sq_dists", x, y)
        measured = tracemalloc.is_tracing()
        # The inputs (the call's copies, alive all through it) do not count.
        peak = tracemalloc.get_traced_memory()[1] - x.nbytes - y.nbytes
    finally:
        if started and tracemalloc.is_tracing():
            tracemalloc.stop()
    if not measured:
        verdict = "not measured: tracemalloc was stopped during the call"
    else:
        verdict = memory_verdict(peak, limit)
    return {"peak memory (NumPy arrays and Python objects)": verdict}
