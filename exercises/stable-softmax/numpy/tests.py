"""Tests for the NumPy track of stable-softmax.

Each test is a table of cases, one call per case, labelled by what the case exercises.
The first tests use small values without a mask (axes and shapes), then large logits,
then masks; each of them has a float32 case among its float64 ones. Then two tests that
observe one thing only: the result's dtype, and whether the inputs were changed in place.
Values are compared with the statement's tolerances (TOL). Unmasked inputs stay within
the statement's promise: |x| <= 1e4 in float64, |x| <= 1000 in float32.
"""

import math

import numpy as np

from graders.sandbox.testing import Case, example, test

# The statement's tolerances, by dtype of the expected value.
TOL = {"float64": (1e-6, 1e-12), "float32": (1e-4, 1e-6)}
F32 = np.float32
F64 = np.float64


def as_array(value):
    """A single number (a NumPy scalar, a float or a 0-d array) as a 0-d array, so that
    a 1-D logsumexp may return any of them; any other value as it is."""
    if isinstance(value, float | np.floating):
        return np.asarray(value)
    return value


def call(t, fn, x, axis=None, mask=None, pass_mask=False, values_only=False):
    """One call of ``fn`` (``axis`` only when given, ``mask`` when given or asked for).
    ``values_only``: see ``in_stated_shape``."""
    kwargs = {} if axis is None else {"axis": axis}
    if mask is not None or pass_mask:
        kwargs["mask"] = mask
    result = as_array(t.call(fn, x, **kwargs))
    return {fn: in_stated_shape(result, fn, x, axis) if values_only else result}


def in_stated_shape(result, fn, x, axis):
    """The result in the statement's shape (x's for softmax, x's without the axis for
    logsumexp) when it has that many elements, so that the tests of large logits and
    masks observe values only: a shape bug is the axis tests' to report."""
    kept = (-1 if axis is None else axis) % x.ndim
    shape = x.shape if fn == "softmax" else x.shape[:kept] + x.shape[kept + 1 :]
    if isinstance(result, np.ndarray) and result.size == math.prod(shape):
        return result.reshape(shape)
    return result


def small(rng, *shape, dtype=F64):
    """Small values, rounded so that a failing case reads easily."""
    return np.round(rng.normal(size=shape), 2).astype(dtype)


def dtype_of(value):
    """The dtype of a result as text ("float32"), or its type's name when it has none."""
    dtype = getattr(as_array(value), "dtype", None)
    return type(value).__name__ if dtype is None else str(dtype)


def both(t, rows):
    """A case per row (label, x, axis) and function: logsumexp, then softmax."""
    return t.cases(
        [
            Case(f"{fn}, {about}", fn=fn, x=x, axis=axis)
            for fn in ("logsumexp", "softmax")
            for about, x, axis in rows
        ],
        lambda fn, x, axis: call(t, fn, x, axis, values_only=True),
    )


def masked(t, rows):
    """A softmax case per row (label, x, axis, mask)."""
    return t.cases(
        [Case(about, x=x, axis=axis, mask=mask) for about, x, axis, mask in rows],
        lambda x, axis, mask: call(t, "softmax", x, axis, mask, values_only=True),
    )


@example("logsumexp of [1, 2, 3] and of [1000, 1000]", hint=1, tolerances=TOL)
def example_logsumexp(t):
    return t.cases(
        [
            Case("x = [1, 2, 3]", x=np.array([1.0, 2.0, 3.0])),
            Case("x = [1000, 1000]", x=np.array([1000.0, 1000.0])),
        ],
        lambda x: call(t, "logsumexp", x),
    )


@example("softmax of [1, 2, 3] and of [1000, 1000]", hint=1, tolerances=TOL)
def example_softmax(t):
    return t.cases(
        [
            Case("x = [1, 2, 3]", x=np.array([1.0, 2.0, 3.0])),
            Case("x = [1000, 1000]", x=np.array([1000.0, 1000.0])),
        ],
        lambda x: call(t, "softmax", x),
    )


@example("softmax with a mask, and a fully masked row", hint=2, tolerances=TOL)
def example_mask(t):
    return masked(
        t,
        [
            (
                "x = [1, 2, 3], mask = [True, False, True]",
                np.array([1.0, 2.0, 3.0]),
                None,
                np.array([True, False, True]),
            ),
            (
                "x = [[1, 2], [3, 4]], mask = [[True, True], [False, False]]",
                np.array([[1.0, 2.0], [3.0, 4.0]]),
                None,
                np.array([[True, True], [False, False]]),
            ),
        ],
    )


AXES = [
    ("1-D, default axis", (5,), None, F64),
    ("2-D, default axis", (3, 4), None, F64),
    ("2-D, axis=0", (3, 4), 0, F64),
    ("2-D, axis=-2", (4, 3), -2, F64),
    ("square 2-D, axis=0", (3, 3), 0, F64),
    ("3-D, float32, axis=1", (2, 3, 4), 1, F32),
    ("3-D, axis=-3", (3, 2, 2), -3, F64),
    ("3-D, a length-1 middle axis, axis=2", (2, 1, 3), 2, F64),
]


@test(
    "logsumexp reduces along the given axis (negative ones too) and removes it from the shape",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def logsumexp_along_axis(t):
    rng = np.random.default_rng(t.seed)
    rows = [(about, small(rng, *shape, dtype=d), axis) for about, shape, axis, d in AXES]
    return t.cases(
        [Case(about, x=x, axis=axis) for about, x, axis in rows],
        lambda x, axis: call(t, "logsumexp", x, axis),
    )


@test(
    "softmax normalises along the given axis (negative ones too) and keeps x's shape",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def softmax_along_axis(t):
    rng = np.random.default_rng(t.seed)
    rows = [(about, small(rng, *shape, dtype=d), axis) for about, shape, axis, d in AXES]
    x = small(rng, 2, 3)
    return t.cases(
        [Case(about, x=x, axis=axis, none=False) for about, x, axis in rows]
        + [Case("2-D, mask=None given", x=x, axis=None, none=True)],
        lambda x, axis, none: call(t, "softmax", x, axis, None, pass_mask=none),
    )


@test(
    "large logits (1000, -1000, mixed) give no overflow and no NaN",
    hint=1,
    tolerances=TOL,
    reveal="summary",
)
def large_logits(t):
    rows = [
        ("[1000, 1001, 1002]", np.array([1000.0, 1001.0, 1002.0]), None),
        ("[-1000, -1000, -1000]", np.array([-1000.0, -1000.0, -1000.0]), None),
        ("[1000, -1000, 0]", np.array([1000.0, -1000.0, 0.0]), None),
        (
            "rows of very different magnitudes",
            np.array([[1000.0, 999.0, 998.0], [-1000.0, -1001.0, -1003.0], [0.5, -0.5, 0.0]]),
            None,
        ),
        (
            "columns of very different magnitudes, axis=0",
            np.array([[9998.0, -5000.0], [9997.0, -5002.0], [1e4, -5000.5]]),
            0,
        ),
        (
            "float32, [1000, 999, -1000]",
            np.array([1000.0, 999.0, -1000.0], dtype=F32),
            None,
        ),
    ]
    return both(t, rows)


@test(
    "masked entries get 0 and the unmasked ones sum to 1 along the axis",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def masked_entries(t):
    rng = np.random.default_rng(t.seed)
    rows = [
        ("1-D, one entry masked", small(rng, 4), None, np.array([True, True, False, True])),
        (
            "2-D, float32, a different mask in each row",
            small(rng, 3, 4, dtype=F32),
            None,
            np.array(
                [[True, False, True, False], [False, True, True, True], [True, True, True, False]]
            ),
        ),
        (
            "2-D, axis=0, a different mask in each column",
            small(rng, 3, 4),
            0,
            np.array(
                [[True, False, True, True], [False, True, True, False], [True, True, False, False]]
            ),
        ),
        (
            "3-D, axis=1",
            small(rng, 2, 3, 2),
            1,
            np.array(
                [
                    [[True, False], [False, True], [True, True]],
                    [[False, False], [True, False], [False, True]],
                ]
            ),
        ),
        (
            "2-D, one entry left in each row",
            small(rng, 2, 3),
            -1,
            np.array([[False, True, False], [False, False, True]]),
        ),
    ]
    return masked(t, rows)


@test(
    "the values of x under masked entries do not matter, even huge ones",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def masked_values_ignored(t):
    rows = [
        (
            "1-D, masked entries hold 1e4",
            np.array([0.5, 1e4, -0.25, 1e4]),
            None,
            np.array([True, False, True, False]),
        ),
        (
            "1-D, masked 1000, kept -1000",
            np.array([1000.0, -1000.0, -1001.0]),
            None,
            np.array([False, True, True]),
        ),
        (
            "2-D, float32, masked entries hold -1e4 and 1e4",
            np.array([[1.5, -1e4, 0.25], [1e4, 2.0, -1.0]], dtype=F32),
            None,
            np.array([[True, False, True], [False, True, True]]),
        ),
        (
            "2-D, axis=0, masked 5000 above kept values",
            np.array([[5000.0, 0.1], [0.3, 5000.0], [-0.2, 0.4]]),
            0,
            np.array([[False, True], [True, False], [True, True]]),
        ),
    ]
    return masked(t, rows)


@test(
    "a slice whose mask is all False gives all zeros, not NaN",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def fully_masked(t):
    rng = np.random.default_rng(t.seed)
    mask_3d = np.ones((2, 2, 3), dtype=bool)
    mask_3d[0, 1] = False
    mask_3d[1, 0] = False
    rows = [
        ("1-D, every entry masked", small(rng, 3), None, np.zeros(3, dtype=bool)),
        (
            "2-D, the middle row masked",
            small(rng, 3, 3),
            None,
            np.array([[True, False, True], [False, False, False], [True, True, False]]),
        ),
        (
            "2-D, axis=0, one column masked",
            small(rng, 3, 2),
            0,
            np.array([[False, True], [False, False], [False, True]]),
        ),
        ("3-D, float32, two slices masked", small(rng, 2, 2, 3, dtype=F32), -1, mask_3d),
        ("2-D, every entry masked", small(rng, 2, 3), None, np.zeros((2, 3), dtype=bool)),
    ]
    return masked(t, rows)


@test(
    "the result has x's dtype: float32 stays float32, float64 stays float64",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def keeps_dtype(t):
    rng = np.random.default_rng(t.seed)
    mask = np.array([[True, False, True], [False, False, False]])
    rows = [
        ("logsumexp, float32, 1-D", "logsumexp", small(rng, 4, dtype=F32), None, None),
        ("logsumexp, float64, 3-D, axis=1", "logsumexp", small(rng, 2, 3, 2), 1, None),
        ("softmax, float32, 2-D, axis=0", "softmax", small(rng, 2, 3, dtype=F32), 0, None),
        ("softmax, float32, with a mask", "softmax", small(rng, 2, 3, dtype=F32), None, mask),
        ("softmax, float64, with a mask", "softmax", small(rng, 2, 3), None, mask),
    ]

    def check(fn, x, axis, mask):
        result = call(t, fn, x, axis, mask)[fn]
        return {"dtype of the result": dtype_of(result)}

    return t.cases(
        [Case(about, fn=fn, x=x, axis=axis, mask=m) for about, fn, x, axis, m in rows], check
    )


@test(
    "x and mask are left unchanged: nothing is written into them",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def leaves_inputs_alone(t):
    rng = np.random.default_rng(t.seed)
    mask = np.array([[True, False], [False, False], [True, True]])
    rows = [
        ("logsumexp, 2-D, axis=0", "logsumexp", small(rng, 3, 2), {"axis": 0}),
        ("softmax, 2-D, no mask", "softmax", small(rng, 3, 2), {}),
        (
            "softmax, 2-D, axis=0, with a mask",
            "softmax",
            small(rng, 3, 2),
            {"axis": 0, "mask": mask},
        ),
    ]

    def check(fn, x, kwargs):
        t.call(fn, x, **kwargs)
        # As text ("x", "mask", "x, mask" or "nothing"), so that a failure names them.
        return {"changed in place": ", ".join(t.changed_in_place("x")) or "nothing"}

    return t.cases([Case(about, fn=fn, x=x, kwargs=kw) for about, fn, x, kw in rows], check)
