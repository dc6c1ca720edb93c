"""Tests for the NumPy track of checkpoint-budget.

tests.py runs beside the learner's code, so it holds neither an evaluator of the memory
model nor any expected value. Several checkpoint lists can be optimal, so the plan tests
never compare lists: for each plan they observe one sentence, "None", what makes it an
invalid checkpoint list, that the learner's own ``peak_memory`` puts it over the budget,
or that it fits and its cost by the learner's own ``recompute_cost``. The reference
observes the same of its own plan, so any plan that reaches the least cost passes.
``peak_memory`` and ``recompute_cost`` are checked on their own by the first two hidden
tests.

Inputs come from fixed generators (``np.random.default_rng`` with literal seeds), so a
test sees the same networks whatever its name. Every value is an integer: the tests
compare with zero tolerance. The large networks come last: a solution that tries every
list runs out of time there, after the other tests have reported.
"""

from itertools import pairwise

import numpy as np

from graders.sandbox.testing import example, test

# The network of the statement's worked example.
EXAMPLE_SIZES = [2, 2, 1, 1, 2, 1]
EXAMPLE_COSTS = [3, 2, 4, 1, 3, 2]

# (sizes, costs, budgets): small networks where the rules of thumb (checkpoint the costliest
# layers first, or the smallest activations first, or space the checkpoints evenly, or
# bring the peak down first and then add what still fits, or take the lowest peak) miss
# the least cost, or find nothing although a list fits.
GREEDY_TRAPS = [
    (EXAMPLE_SIZES, EXAMPLE_COSTS, [6, 7, 8]),
    ([4, 4, 1, 1, 1], [9, 3, 1, 9, 2], [9]),
    ([5, 2, 3, 1, 1], [9, 7, 1, 9, 8], [10]),
    ([3, 3, 3, 3, 3], [9, 5, 1, 5, 6], [11]),
    ([2, 3, 3, 1, 4], [4, 9, 7, 2, 8], [8]),
    ([6, 4, 1, 4, 2, 5, 1, 5], [4, 3, 2, 5, 1, 7, 5, 8], [12]),
    ([3, 1, 1, 2, 2, 2, 2, 6], [5, 4, 3, 5, 9, 1, 2, 6], [16]),
    ([2, 4, 5, 3, 5, 3, 2, 2], [4, 9, 2, 4, 5, 1, 9, 9], [15]),
    # Fewer checkpoints at costly layers beat more checkpoints at cheap ones.
    ([1, 1, 3, 2, 4], [7, 0, 8, 9, 5], [9]),
    ([2, 4, 4, 2, 2], [3, 8, 4, 3, 3], [10]),
]

# (seed, n, largest size, budgets) of the large networks: sizes 0 .. largest and costs
# 0 .. 50 drawn by np.random.default_rng(seed). The first budget of network 1 is one below
# its smallest peak, the second exactly that peak.
LARGE = [
    (101, 100, 20, [102, 103, 206, 300]),
    (102, 120, 30, [190, 300]),
    (103, 150, 30, [234, 300]),
]


def show(values):
    """Values as the code that makes them: a list, or a NumPy array with its dtype (a
    learner who retries the case with a list may not meet the same bug)."""
    text = "[" + ", ".join(str(int(v)) for v in values) + "]"
    if type(values) is np.ndarray:
        return f"np.array({text}, dtype=np.{values.dtype.name})"
    return text


def number(value):
    """A NumPy scalar as the Python number it holds, and an integral float as an int, so
    that 3, np.int64(3) and 3.0 read alike in a description."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def check_list(plan, n):
    """(None, the indices as ints) for a valid checkpoint list of an n-layer network, or
    (what is wrong with it, None)."""
    if isinstance(plan, np.ndarray):
        if plan.ndim != 1:
            return f"an array of {plan.ndim} dimensions, not a 1-D array", None
        items = list(plan)
    elif isinstance(plan, list | tuple):
        items = list(plan)
    else:
        kind = type(plan).__name__
        return f"a value of type {kind}, not a list, a tuple, a 1-D array or None", None
    for item in items:
        if isinstance(item, bool | np.bool_) or not isinstance(item, int | np.integer):
            return f"a list holding {item!r}, which is not an integer", None
    indices = [int(i) for i in items]
    for i in indices:
        if not 0 <= i <= n - 2:
            return f"{show(indices)}, where {i} is not a layer index from 0 to n - 2", None
    if any(a >= b for a, b in pairwise(indices)):
        return f"{show(indices)}, which is not strictly increasing", None
    return None, indices


def judge(t, sizes, costs, budget, where, with_cost=True):
    """Ask for a plan and describe it in words that do not depend on which of the
    cheapest lists it is: None, what makes it invalid, that it does not fit (by the
    learner's own peak_memory), or that it fits and (``with_cost``) what it costs (by the
    learner's own recompute_cost)."""
    key = f"plan{where}"
    plan = t.call("plan_checkpoints", sizes, costs, budget)
    if plan is None:
        return {key: "None"}
    problem, checkpoints = check_list(plan, len(sizes))
    if problem is not None:
        return {key: problem}
    peak = number(t.call("peak_memory", sizes, checkpoints))
    if not peak <= budget:
        return {key: f"{show(checkpoints)}, whose peak memory {peak} is over the budget"}
    if not with_cost:
        return {key: "a list within the budget"}
    cost = number(t.call("recompute_cost", costs, checkpoints))
    return {key: f"a list within the budget, of recompute cost {cost}"}


def judge_small(t, cases, with_cost=True):
    """judge() for small networks, whose sizes and costs the messages show."""
    observed = {}
    for sizes, costs, budgets in cases:
        for budget in budgets:
            where = f" (budget {budget}, sizes {show(sizes)}, costs {show(costs)})"
            observed.update(judge(t, sizes, costs, budget, where, with_cost))
    return observed


def random_lists(rng, n, count):
    """count different strictly increasing checkpoint lists of an n-layer network."""
    lists = []
    for _ in range(count):
        k = int(rng.integers(0, n))  # 0 .. n - 1 checkpoints
        lists.append(sorted(int(i) for i in rng.choice(n - 1, size=k, replace=False)))
    return lists


def as_given(rng, values):
    """The same values as a list, an int64 array or an int32 array, at random."""
    kind = int(rng.integers(0, 3))
    if kind == 0:
        return [int(v) for v in values]
    return np.array(values, dtype=np.int64 if kind == 1 else np.int32)


def sweep_lists(t, function, what, values_name, seed, fixed):
    """Call peak_memory or recompute_cost on fixed and random (values, checkpoints)."""
    rng = np.random.default_rng(seed)
    cases = list(fixed)
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12]:
        values = as_given(rng, rng.integers(0, 10, size=n))
        lists = [*random_lists(rng, n, 5), [], list(range(n - 1))]
        cases += [(values, c) for c in lists]
    observed = {}
    for values, checkpoints in cases:
        key = f"{what} for {values_name} {show(values)} and checkpoints {checkpoints}"
        if key not in observed:
            observed[key] = number(t.call(function, values, list(checkpoints)))
    return observed


@example("peak memory and recompute cost of the worked example", hint=1, rtol=0, atol=0)
def example_peak_and_cost(t):
    observed = {}
    for checkpoints in ([0, 2, 4], [1, 2, 4], [], [0, 1, 2, 3, 4]):
        observed[f"peak memory with checkpoints {checkpoints}"] = t.call(
            "peak_memory", EXAMPLE_SIZES, checkpoints
        )
        observed[f"recompute cost with checkpoints {checkpoints}"] = t.call(
            "recompute_cost", EXAMPLE_COSTS, checkpoints
        )
    return {key: number(value) for key, value in observed.items()}


@example("plans for the worked example", hint=2, rtol=0, atol=0)
def example_plans(t):
    return judge_small(t, [(EXAMPLE_SIZES, EXAMPLE_COSTS, [6, 4, 9])])


@test(
    "peak memory is the largest backward step, with the checkpoints kept below it",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def peak_sweep(t):
    fixed = [
        ([5], []),
        ([0, 7], [0]),
        ([4, 1], []),
        ([4, 1], [0]),
        ([9, 1, 1, 1], [0]),  # a big checkpoint feeds the next layer
        ([1, 1, 6, 1, 1], [1, 3]),  # the first segment is not the largest
        ([3, 1, 1, 4, 1, 1, 2], [0, 3, 5]),
        ([0, 0, 0, 0], [1, 2]),
        (np.array([6, 2, 2, 2, 2, 2, 8]), [0, 1, 2, 3, 4, 5]),
    ]
    return sweep_lists(t, "peak_memory", "peak memory", "sizes", 20261, fixed)


@test(
    "recompute cost counts each layer run again, never the last layer of a segment",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def cost_sweep(t):
    fixed = [
        ([5], []),
        ([3, 8], []),
        ([3, 8], [0]),
        ([2, 9, 4, 7], [1]),
        ([1, 2, 3, 4, 5, 6], [0, 4]),
        ([0, 0, 5, 0], []),
        (np.array([7, 1, 7, 1, 7]), [0, 1, 2, 3]),
    ]
    return sweep_lists(t, "recompute_cost", "recompute cost", "costs", 20262, fixed)


@test(
    "the plan is a valid list within the budget (a peak equal to the budget fits), or None "
    "when no list fits; measures are integers; one layer, zero sizes, zero costs",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def edge_cases(t):
    observed = {}
    for sizes, checkpoints in [([3, 1, 2], [0]), (np.array([4, 0, 2, 5]), [1])]:
        for function, what in [("peak_memory", "peak memory"), ("recompute_cost", "cost")]:
            value = t.call(function, sizes, checkpoints)
            key = f"kind of the {what} for {show(sizes)} and checkpoints {checkpoints}"
            observed[key] = kind_of_integer(value)
    cases = [
        ([3], [5], [2, 3, 10]),  # one layer: its own output and gradient
        ([2, 1], [4, 1], [2, 3]),
        (EXAMPLE_SIZES, EXAMPLE_COSTS, [4, 5]),  # 5 is the smallest peak of this network
        ([0, 0, 0, 0], [1, 2, 3, 4], [0]),  # nothing takes memory
        ([3, 1, 2, 2, 1], [0, 0, 0, 0, 0], [5, 6]),  # nothing costs anything
        ([2, 3, 1, 4, 2], [1, 1, 1, 1, 9], [12]),  # the total memory: every layer fits
        ([1, 2, 1, 3, 2, 1], [5, 0, 4, 0, 3, 7], [6, 7, 100]),
    ]
    # Whether the plan is valid and fits, not what it costs: that is the next tests' rule.
    observed.update(judge_small(t, cases, with_cost=False))
    sizes, costs = np.array([2, 1, 3, 1, 2, 2, 1]), np.array([6, 2, 5, 1, 4, 3, 2])
    for budget in (5, 6, 8):  # NumPy arrays as input
        where = f" (budget {budget}, sizes {show(sizes)}, costs {show(costs)})"
        observed.update(judge(t, sizes, costs, budget, where, with_cost=False))
    return observed


@test(
    "the plan costs the least among the lists that fit: greedy choices fall short",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def beats_greedy(t):
    return judge_small(t, GREEDY_TRAPS)


@test(
    "the plan is the cheapest list within the budget, for every budget from 0 to the total memory",
    hint=3,
    rtol=0,
    atol=0,
    reveal="summary",
)
def budget_sweep(t):
    rng = np.random.default_rng(20263)
    cases = []
    for n in [1, 2, 3, 4, 5, 6, 7, 8, 9]:
        sizes = [int(s) for s in rng.integers(0, 6, size=n)]
        costs = [int(c) for c in rng.integers(0, 10, size=n)]
        cases.append((sizes, costs, range(sum(sizes) + 2)))
    return judge_small(t, cases)


def kind_of_integer(value):
    """ "an integer" for a Python int or a NumPy integer (not a bool), else its type:
    number() reads 3.0 as 3, so a float's type is observed apart."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return "an integer"
    return f"a {type(value).__module__.replace('builtins', 'Python')} {type(value).__name__}"


@test(
    "plans networks of 100 to 150 layers within the time limit",
    hint=3,
    rtol=0,
    atol=0,
    reveal="summary",
)
def large_networks(t):
    observed = {}
    for label, (seed, n, largest, budgets) in enumerate(LARGE, start=1):
        rng = np.random.default_rng(seed)
        sizes = rng.integers(0, largest + 1, size=n)
        costs = rng.integers(0, 51, size=n)
        if label % 2 == 0:  # network 2 comes as lists, the others as arrays
            sizes, costs = [int(s) for s in sizes], [int(c) for c in costs]
        for budget in budgets:
            where = f" (budget {budget}, large network {label}: {n} layers)"
            observed.update(judge(t, sizes, costs, budget, where))
    return observed
