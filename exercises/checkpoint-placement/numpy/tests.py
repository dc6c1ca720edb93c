"""Tests for the NumPy track of checkpoint-placement.

``peak_memory`` is observed directly on sweeps of checkpoint lists. ``best_checkpoints``
is judged without an answer here: several lists can reach the smallest peak, so a test
observes whether the returned list is a valid checkpoint list and, when it is, its peak as
the learner's own ``peak_memory`` computes it. The reference run observes the same two
things of its own choice, so any list with the smallest peak passes.

Every input is built before the first call of learner code (and random sizes come from a
local generator), so the inputs, and the observation names that quote them, are the same
in the reference's run and the learner's.
"""

from itertools import combinations, pairwise

import numpy as np

from graders.sandbox.testing import example, test

EXAMPLE_SIZES = [2, 1, 3, 1, 2]  # the statement's worked example


def every_list(n, least=0, most=None):
    """Every valid checkpoint list of an n-layer network with least..most checkpoints."""
    most = n - 1 if most is None else most
    return [list(c) for k in range(least, most + 1) for c in combinations(range(n - 1), k)]


def shown(sizes):
    """How a sizes argument is quoted in an observation name."""
    if type(sizes) is np.ndarray:
        return f"sizes np.array({sizes.tolist()}, dtype=np.{sizes.dtype.name})"
    return f"sizes {sizes}"


def peaks(t, cases, kinds=False):
    """Observe peak_memory for each (sizes, list of checkpoint lists); with ``kinds``,
    also whether each peak is an integer (before its value: 6.0 equals 6)."""
    observed = {}
    for sizes, lists in cases:
        for checkpoints in lists:
            name = f"peak with checkpoints {checkpoints} and {shown(sizes)}"
            peak = t.call("peak_memory", sizes, list(checkpoints))
            if kinds:
                observed[f"kind of the {name}"] = kind_of_integer(peak)
            observed[name] = peak
    return observed


def kind_of_integer(value):
    """ "an integer" for a Python int or a NumPy integer (not a bool), else its type."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return "an integer"
    return type_name(value)


_TYPE_NAMES = {
    bool: "a bool",
    float: "a float",
    str: "a string",
    list: "a list",
    tuple: "a tuple",
    dict: "a dict",
    set: "a set",
    type(None): "None",
    np.bool_: "a NumPy bool",
    np.float64: "a NumPy float",
    np.float32: "a NumPy float",
    np.ndarray: "a NumPy array",
}


def type_name(value):
    return _TYPE_NAMES.get(type(value), "an object of another type")


def check_list(chosen, n):
    """("valid", the list as Python ints), or (what makes it invalid, None)."""
    if isinstance(chosen, np.ndarray):
        if chosen.ndim != 1:
            return f"not valid: a NumPy array of {chosen.ndim} dimensions; expected 1", None
        if chosen.size == 0:
            return "valid", []
        if chosen.dtype.kind not in "iu":
            return f"not valid: a NumPy array of {chosen.dtype.name}; expected integers", None
        items = [int(v) for v in chosen.tolist()]
    elif isinstance(chosen, list | tuple):
        items = []
        for position, value in enumerate(chosen):
            if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
                what = type_name(value)
                return f"not valid: item {position} is {what}, not an integer layer index", None
            items.append(int(value))
    else:
        got = type_name(chosen)
        return f"not valid: expected a list, a tuple or a NumPy array, got {got}", None
    for value in items:
        if not 0 <= value <= n - 2:
            if n == 1:
                return f"not valid: {value} in a one-layer network, which has no checkpoint", None
            return f"not valid: {value} is not a layer index between 0 and n - 2 = {n - 2}", None
    for before, after in pairwise(items):
        if after <= before:
            return f"not valid: not strictly increasing ({before} then {after})", None
    return "valid", items


def choices(t, cases):
    """Observe best_checkpoints for each (sizes, label): validity, then the peak of the
    returned list by the learner's own peak_memory."""
    observed = {}
    for sizes, label in cases:
        chosen = t.call("best_checkpoints", sizes)
        verdict, checkpoints = check_list(chosen, len(sizes))
        observed[f"checkpoint list chosen for {label}"] = verdict
        peak = "not measured: the list is not valid"
        if checkpoints is not None:
            peak = t.call("peak_memory", sizes, checkpoints)
        observed[f"peak of the list chosen for {label}"] = peak
    return observed


@example("peak memory of the statement's example", hint=1)
def example_peaks(t):
    return peaks(t, [(EXAMPLE_SIZES, [[], [2], [1, 3]])])


@example("best checkpoints of the statement's example", hint=2)
def example_choice(t):
    return choices(t, [(EXAMPLE_SIZES, shown(EXAMPLE_SIZES))])


@test(
    "a backward step holds its start checkpoint (never the input), the rebuilt layers and the "
    "arriving gradient",
    hint=1,
    reveal="summary",
)
def one_checkpoint(t):
    # Powers of two: each peak tells exactly which activations were counted.
    cases = [
        ([1, 2, 4, 8, 16, 32], every_list(6, 0, 1)),
        ([32, 16, 8, 4, 2, 1], every_list(6, 0, 1)),
        ([5, 1, 1, 9, 1, 1, 7], every_list(7, 0, 1)),
        ([1, 1, 1, 1, 1, 1, 1, 1], every_list(8, 0, 1)),
    ]
    return peaks(t, cases)


@test("checkpoints below a segment are still held while it is rebuilt", hint=1, reveal="summary")
def checkpoints_below(t):
    cases = [
        ([1, 2, 4, 8, 16, 32], every_list(6, 2)),
        ([64, 32, 16, 8, 4, 2, 1], every_list(7, 2)),
        ([3, 9, 1, 1, 1, 1, 1, 2], [[0, 1, 2], [1, 3, 5], [1, 2, 3, 4, 5, 6], [0, 6], [2, 4, 6]]),
    ]
    return peaks(t, cases)


@test(
    "sizes given as lists or NumPy integer arrays, zeros and one-layer networks included; "
    "the peak is an integer",
    hint=1,
    reveal="summary",
)
def small_networks(t):
    cases = [
        ([7], [[]]),
        (np.array([7], dtype=np.int64), [[]]),
        ([0], [[]]),
        ([4, 9], [[], [0]]),
        (np.array([9, 4], dtype=np.int32), [[], [0]]),
        ([0, 5, 0], every_list(3)),
        (np.array([6, 0, 2, 0], dtype=np.int64), every_list(4)),
        (np.array([2, 1, 3, 1, 2], dtype=np.int32), every_list(5)),
        ([0, 0, 0, 0, 0], [[], [1, 3], [0, 1, 2, 3]]),
        (np.array([1, 0, 0, 8, 0, 3], dtype=np.int64), every_list(6)),
    ]
    return peaks(t, cases, kinds=True)


@test(
    "one layer allows only the empty list, and two layers gain nothing from a checkpoint",
    hint=2,
    reveal="summary",
)
def tiny_networks(t):
    cases = [
        [5],
        [0],
        np.array([3], dtype=np.int64),
        [4, 1],
        [1, 4],
        [0, 0],
        np.array([2, 7], dtype=np.int32),
    ]
    return choices(t, [(sizes, shown(sizes)) for sizes in cases])


@test(
    "equal sizes, 1 to 10 layers: the chosen list reaches the smallest peak",
    hint=2,
    reveal="summary",
)
def equal_sizes(t):
    cases = [([1] * n, f"{n} layer{'s' if n > 1 else ''} of size 1") for n in range(1, 11)]
    cases += [
        (np.full(9, 3, dtype=np.int64), "9 layers of size 3 (a NumPy int64 array)"),
        (np.full(10, 2, dtype=np.int32), "10 layers of size 2 (a NumPy int32 array)"),
    ]
    return choices(t, cases)


@test("uneven sizes and zeros: the chosen list reaches the smallest peak", hint=2, reveal="summary")
def uneven_sizes(t):
    rng = np.random.default_rng(2016)
    cases = [
        [3, 1, 4, 1, 2, 2],
        [1, 1, 1, 9, 1, 1, 1, 1],
        [9, 1, 1, 1, 1, 1, 1, 9],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 20],
        [0, 0, 5, 0, 0, 5, 0, 0, 5, 0],
        [2, 2, 2, 2, 2, 1, 1, 1, 1, 1],
        np.array([8, 1, 8, 1, 8, 1, 8, 1, 8], dtype=np.int64),
        rng.integers(1, 10, size=10),
        rng.integers(0, 6, size=10).astype(np.int32),
        [int(v) for v in rng.integers(1, 30, size=10)],
    ]
    return choices(t, [(sizes, shown(sizes)) for sizes in cases])
