"""Tests for the NumPy track of training-step.

Each hidden test is a table of cases on small networks. The weights and inputs are random
values rounded to two decimals, drawn so that no hidden unit's input z is near 0 (every
correct way of writing relu' then agrees), except in the test of relu'(0), whose inputs
make some z exactly 0. The tests read the gradients in the velocity after one step from
zero velocity, then the momentum rule, the update of the parameters (one case with arrays
that are not C-contiguous: p.ravel() of those is a copy), the in-place rule, that x and y
are left unchanged, and three chained steps.

The in-place test observes only which arrays the dicts hold after the call, never
values: wrong values are the business of the tests before it.
"""

import numpy as np

from graders.sandbox.testing import Case, argument_code, example, shown_as, test

KEYS = ("W1", "b1", "W2", "b2")
TOL = {"float64": (1e-9, 1e-12)}  # the statement's tolerance (exercise.toml [tolerance])


# Why params and velocity are passed as a StepDict, not a plain dict: t.call copies a
# plain dict and the arrays in it, so the learner's code would update copies and the test
# could not see whether the caller's own arrays changed in place (the rule under test).
# t.call copies only objects whose type is exactly dict, list, tuple, ndarray or Tensor;
# an instance of this subclass reaches the learner's code as it is, arrays included.
# (t.changed_in_place cannot replace it: it says whether values changed, not whether the
# dict still holds the caller's arrays.)
class StepDict(dict):
    """A dict that t.call passes as it is (it copies a plain dict and its arrays)."""


# Memory layouts that are not C-contiguous, each with the code that builds it: a Fortran
# order copy, and a strided view (every other element of a larger array). p.ravel() and
# p.reshape(-1) of such an array are copies, so writing into them leaves p unchanged.
LAYOUTS = {
    "fortran": (np.asfortranarray, "np.asfortranarray({})"),
    "strided": (lambda a: np.stack([a, a], axis=-1)[..., 0], "np.stack([{}] * 2, axis=-1)[..., 0]"),
}


def passed(arrays, layouts=None):
    """``arrays`` as a StepDict of float64 arrays, shown in a failing call as the code of
    its values before the call (after it, the learner's step has changed them).
    ``layouts`` maps a key to a name of LAYOUTS: that array is passed in that layout."""
    layouts = layouts or {}
    d, codes = StepDict(), []
    for k, v in arrays.items():
        a = np.array(v, dtype=np.float64)
        code = argument_code(a)
        if k in layouts:
            make, form = LAYOUTS[layouts[k]]
            a = make(a)
            code = None if code is None else form.format(code)
        d[k] = a
        codes.append(None if code is None else f"{k!r}: {code}")
    if None not in codes:
        shown_as(d, "{" + ", ".join(codes) + "}")
    return d


def snapshot(d):
    """The entries of ``d`` as they are now, each copied (None for a missing key)."""
    return {k: np.copy(v) if isinstance(v, np.ndarray) else v for k, v in dict.items(d)}


def rounded(rng, shape, scale=1.0):
    return np.round(rng.uniform(-scale, scale, shape), 2)


def network(rng, n, d, h, k):
    """Params, x and y of the given sizes, every hidden input z at least 0.05 away from 0."""
    while True:
        params = {
            "W1": rounded(rng, (d, h)),
            "b1": rounded(rng, (h,), 0.5),
            "W2": rounded(rng, (h, k)),
            "b2": rounded(rng, (k,), 0.5),
        }
        x = rounded(rng, (n, d), 2.0)
        z = x @ params["W1"] + params["b1"]
        if np.abs(z).min() >= 0.05:
            return params, x, rounded(rng, (n, k), 2.0)


def zeros_like(params):
    return {k: np.zeros_like(v) for k, v in params.items()}


# (label, n, d, h, k): the sizes of the networks of the hidden tests.
SIZES = [
    ("4 samples, 3 inputs, 5 hidden units, 2 outputs", 4, 3, 5, 2),
    ("a single sample", 1, 3, 4, 2),
    ("a single output", 5, 2, 3, 1),
]


def cases(rng, velocity="zeros", lr=0.5, momentum=0.9):
    """One Case per size; ``velocity`` is "zeros" or "random" (a velocity left by earlier
    steps)."""
    table = []
    for label, n, d, h, k in SIZES:
        params, x, y = network(rng, n, d, h, k)
        v = zeros_like(params)
        if velocity == "random":
            v = {name: rounded(rng, a.shape, 0.5) for name, a in params.items()}
        table.append(Case(label, params=params, x=x, y=y, velocity=v, lr=lr, momentum=momentum))
    return table


# Neither params nor velocity C-contiguous, in every array (a case's layouts=).
NOT_CONTIGUOUS = (
    {"W1": "fortran", "b1": "strided", "W2": "strided", "b2": "strided"},
    {"W1": "strided", "b1": "strided", "W2": "fortran", "b2": "strided"},
)


def step(t, params, x, y, velocity, lr, momentum, layouts=({}, {})):
    """One call of mlp_step; returns (loss, params, velocity) after it, the dicts as passed.
    ``layouts``: the memory layouts of params and of velocity (see passed)."""
    params, velocity = passed(params, layouts[0]), passed(velocity, layouts[1])
    loss = t.call("mlp_step", params, x, y, velocity, lr, momentum)
    return loss, params, velocity


def loss_observations(loss):
    return {"returned loss": loss, "returned loss is a float": isinstance(loss, float)}


# The worked example of the statement, and its second step.
EXAMPLE_PARAMS = {"W1": [[0.5]], "b1": [0.0], "W2": [[1.5]], "b2": [0.5]}
EXAMPLE_X, EXAMPLE_Y = np.array([[2.0]]), np.array([[1.0]])
SECOND_PARAMS = {"W1": [[-0.1]], "b1": [-0.3], "W2": [[1.3]], "b2": [0.3]}
SECOND_VELOCITY = {"W1": [[6.0]], "b1": [3.0], "W2": [[2.0]], "b2": [2.0]}


@example("the worked example: one step of a network with one hidden unit", hint=2, tolerances=TOL)
def worked_example(t):
    velocity = {k: np.zeros_like(np.array(v, dtype=np.float64)) for k, v in EXAMPLE_PARAMS.items()}
    loss, params, velocity = step(t, EXAMPLE_PARAMS, EXAMPLE_X, EXAMPLE_Y, velocity, 0.1, 0.9)
    return {
        **loss_observations(loss),
        "velocity after the step": snapshot(velocity),
        "params after the step": snapshot(params),
    }


@example(
    "the worked example's second step: the hidden unit is off, momentum carries on",
    hint=3,
    tolerances=TOL,
)
def second_step(t):
    loss, params, velocity = step(t, SECOND_PARAMS, EXAMPLE_X, EXAMPLE_Y, SECOND_VELOCITY, 0.1, 0.9)
    return {
        **loss_observations(loss),
        "velocity after the step": snapshot(velocity),
        "params after the step": snapshot(params),
    }


@test(
    "returns the mean squared error before the update, as a float",
    hint=1,
    tolerances=TOL,
    reveal="summary",
)
def returned_loss(t):
    rng = np.random.default_rng(t.seed)
    return t.cases(cases(rng, lr=1.0), lambda **case: loss_observations(step(t, **case)[0]))


@test(
    "one step from zero velocity leaves each parameter's gradient in the velocity",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def gradients(t):
    rng = np.random.default_rng(t.seed)
    return t.cases(
        cases(rng), lambda **case: {"velocity after the step": snapshot(step(t, **case)[2])}
    )


@test(
    "a hidden unit whose input z is exactly 0 passes no gradient (relu'(0) = 0)",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def relu_at_zero(t):
    y = np.array([[1.0, -0.5], [0.25, 2.0]])
    # Sums of halves and quarters are exact: z is 0 in the first row, in any order of sums.
    x = np.array([[1.0, -1.0], [0.5, 0.5]])
    crossing = {
        "W1": [[0.5, 1.0, -0.5], [0.5, 0.25, 1.0]],
        "b1": [0.0, 0.25, 0.5],
        "W2": [[1.0, -0.5], [0.5, 0.25], [-1.0, 0.5]],
        "b2": [0.25, -0.25],
    }
    # Here the bias cancels x @ W1: z is 0 for the second unit of the second row.
    by_bias = {
        "W1": [[0.5, 1.0, -0.5], [0.25, -0.5, 1.0]],
        "b1": [0.5, -0.5, 0.25],
        "W2": [[1.0, -0.5], [0.5, 0.25], [-1.0, 0.5]],
        "b2": [0.25, -0.25],
    }
    table = [
        Case("z is 0 where x @ W1 cancels", params=crossing),
        Case("z is 0 where the bias cancels x @ W1", params=by_bias),
    ]

    def check(params):
        velocity = {k: np.zeros(np.shape(v)) for k, v in params.items()}
        _, _, velocity = step(t, params, x, y, velocity, 0.5, 0.9)
        return {"velocity after the step": snapshot(velocity)}

    return t.cases(table, check)


@test(
    "the velocity becomes momentum * velocity + gradient, from the velocity passed in",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def momentum(t):
    rng = np.random.default_rng(t.seed)
    return t.cases(
        cases(rng, velocity="random", momentum=0.6)[:2],
        lambda **case: {"velocity after the step": snapshot(step(t, **case)[2])},
    )


@test(
    "each parameter moves by -lr times the new velocity",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def parameter_update(t):
    rng = np.random.default_rng(t.seed)
    first, second = cases(rng, velocity="random", lr=0.3, momentum=0.8)[:2]
    table = [
        first,
        Case(
            f"{second.label}; params and velocity not C-contiguous",
            **second.arguments,
            layouts=NOT_CONTIGUOUS,
        ),
    ]
    return t.cases(table, lambda **case: {"params after the step": snapshot(step(t, **case)[1])})


@test(
    "params and velocity keep their arrays, updated in place",
    hint=1,
    tolerances=TOL,
    reveal="summary",
)
def in_place(t):
    rng = np.random.default_rng(t.seed)

    def check(params, x, y, velocity, lr, momentum):
        params, velocity = passed(params), passed(velocity)
        arrays, speeds = dict(params), dict(velocity)  # the arrays passed in
        t.call("mlp_step", params, x, y, velocity, lr, momentum)
        return {
            **{
                f"params[{k!r}] is still the array passed in": dict.get(params, k) is arrays[k]
                for k in KEYS
            },
            **{
                f"velocity[{k!r}] is still the array passed in": dict.get(velocity, k) is speeds[k]
                for k in KEYS
            },
        }

    return t.cases(cases(rng, velocity="random", lr=0.3, momentum=0.8)[:1], check)


@test("x and y are left unchanged", hint=1, tolerances=TOL, reveal="summary")
def inputs_unchanged(t):
    rng = np.random.default_rng(t.seed)

    def check(**case):
        step(t, **case)
        return {
            "changed in place": t.changed_in_place("params", "x", "y", "velocity", "lr", "momentum")
        }

    return t.cases(cases(rng, velocity="random", lr=0.3, momentum=0.8)[:1], check)


@test(
    "three steps in a row, each from the velocity the last one left",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def three_steps(t):
    rng = np.random.default_rng(t.seed)

    def check(params, x, y, velocity, lr, momentum):
        params, velocity = passed(params), passed(velocity)
        losses = [t.call("mlp_step", params, x, y, velocity, lr, momentum) for _ in range(3)]
        return {
            "losses of the three steps": losses,
            "velocity after three steps": snapshot(velocity),
            "params after three steps": snapshot(params),
        }

    return t.cases(cases(rng, lr=0.2, momentum=0.9)[:1], check)
