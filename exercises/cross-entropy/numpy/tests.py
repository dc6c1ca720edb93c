"""Tests for the NumPy track of cross-entropy.

Each case makes one call and observes whether a pair came back, the loss (as a 0-d array
of the dtype of the logits, whatever number form the learner returned) and, where the
test is about it, the gradient. Each test observes only what its name is about: the
float32 test the gradient's dtype alone, the last test only which arguments the call
changed in place. The plain rules come first, on float64 logits with no ignored row;
ignore_index, the all-ignored batch, float32, the small shapes and the inputs left alone
follow. The float32 logits whose values are compared stay within 100 in absolute value,
as the statement says: near 1000, float32 rounding of ``m + log(sum(exp(z - m)))`` alone
exceeds the float32 tolerance.
"""

import numpy as np

from graders.sandbox.testing import Case, MissingEntryPoint, example, test

F64 = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-5)}


def as_loss(value, dtype):
    """The loss as a 0-d array of the logits' dtype when it is a number in any form the
    statement accepts (a float, a NumPy scalar, a 0-d array); otherwise as it is, so that
    the comparison says what it is."""
    number = type(value) in (float, int) or isinstance(value, np.floating | np.integer)
    number = number or (
        type(value) is np.ndarray and value.shape == () and value.dtype.kind in "fiu"
    )
    return np.asarray(value, dtype=np.float64).astype(dtype) if number else value


def observe(t, logits, targets, what=("loss", "gradient"), **kwargs):
    result = t.call("cross_entropy", logits, targets, **kwargs)
    pair = type(result) in (tuple, list) and len(result) == 2
    loss, grad = result if pair else (None, None)
    observed = {"returns a pair (loss, grad)": pair}
    if "loss" in what:
        observed["loss"] = as_loss(loss, logits.dtype)
    if "gradient" in what:
        observed["gradient"] = grad
    return observed


def gradient_dtype(t, logits, targets, **kwargs):
    """Only the dtype of the gradient, as an empty array of it (None if no array came back)."""
    result = t.call("cross_entropy", logits, targets, **kwargs)
    grad = result[1] if type(result) in (tuple, list) and len(result) == 2 else None
    return {"dtype of the gradient": np.zeros(0, grad.dtype) if type(grad) is np.ndarray else None}


def changes(t, logits, targets, **kwargs):
    """Only which arguments the call changed in place, even when it then raised (its
    results are other tests' business)."""
    try:
        t.call("cross_entropy", logits, targets, **kwargs)
    except MissingEntryPoint:
        raise
    except Exception:  # a crash is the other tests' finding: this one only looks at the inputs
        pass
    changed = t.changed_in_place("logits", "targets")
    return {"changed in place": ", ".join(changed) or "nothing"}  # names it: "got 'targets'"


def draw_plain(rng):
    """Float64 logits of a few rows and classes, every target a class."""
    n, c = int(rng.integers(2, 7)), int(rng.integers(3, 5))
    logits = np.round(rng.normal(0.0, 2.0, size=(n, c)), 2)
    return logits, rng.integers(0, c, size=n)


WORKED = np.array([[0.0, 0.0], [np.log(3.0), 0.0]])


@example("the worked example: two rows, both kept", hint=1, tolerances=F64)
def worked_example(t):
    return observe(t, WORKED, np.array([0, 1]))


@example("the worked example with row 1 ignored", hint=2, tolerances=F64)
def worked_example_ignored(t):
    return observe(t, WORKED, np.array([0, -100]))


@test(
    "the loss is the mean of -log_softmax at each row's target",
    hint=1,
    reveal="summary",
    tolerances=F64,
)
def loss_value(t):
    return t.random_cases(
        4, draw_plain, lambda logits, targets: observe(t, logits, targets, what=("loss",))
    )


@test(
    "the gradient is (softmax - one_hot) / N when every row is kept",
    hint=2,
    reveal="summary",
    tolerances=F64,
)
def gradient_value(t):
    return t.random_cases(
        4, draw_plain, lambda logits, targets: observe(t, logits, targets, what=("gradient",))
    )


@test(
    "large logits (up to 1000) give finite, accurate values: no overflow",
    hint=1,
    reveal="summary",
    tolerances=F64,
)
def large_logits(t):
    base = np.array([[3.0, -1.5, 0.5], [-2.0, 4.0, 1.0], [0.0, 0.25, -0.75]])
    targets = np.array([0, 2, 1])
    return t.cases(
        [
            Case("logits near 1000", logits=base + 1000.0),
            Case("logits near -1000", logits=base - 1000.0),
            Case(
                "rows near 1000, -1000 and 0", logits=base + np.array([[1000.0], [-1000.0], [0.0]])
            ),
            Case(
                "float32 logits near 80 (up to 96)", logits=(base * 4.0 + 80.0).astype(np.float32)
            ),
        ],
        lambda logits: observe(t, logits, targets),
    )


@test(
    "ignored rows (target -100) add nothing: the mean is over the kept rows, their gradient is 0",
    hint=2,
    reveal="summary",
    tolerances=F64,
)
def ignored_rows(t):
    logits = np.round(np.random.default_rng(t.seed).normal(0.0, 2.0, size=(5, 4)), 2)
    return t.cases(
        [
            Case("one ignored row", targets=np.array([1, 3, -100, 0, 2])),
            Case("ignored first and last rows", targets=np.array([-100, 2, 2, 1, -100])),
            Case("one kept row", targets=np.array([-100, -100, 3, -100, -100])),
        ],
        lambda targets: observe(t, logits, targets),
    )


@test(
    "ignore_index is honoured whatever its value: -1, a class index, 255",
    hint=2,
    reveal="summary",
    tolerances=F64,
)
def other_ignore_index(t):
    logits = np.round(np.random.default_rng(t.seed).normal(0.0, 2.0, size=(5, 3)), 2)
    return t.cases(
        [
            Case("ignore_index=-1", targets=np.array([2, -1, 0, -1, 1]), ignore=-1),
            Case("ignore_index=0, a class", targets=np.array([0, 2, 0, 1, 1]), ignore=0),
            Case("ignore_index=2, the last class", targets=np.array([1, 2, 0, 2, 2]), ignore=2),
            Case("ignore_index=255", targets=np.array([255, 1, 2, 255, 0]), ignore=255),
        ],
        lambda targets, ignore: observe(t, logits, targets, ignore_index=ignore),
    )


@test(
    "when every target is ignored, the loss is 0.0 and the gradient is all zeros (not NaN)",
    hint=2,
    reveal="summary",
    tolerances=F64,
)
def all_ignored(t):
    logits = np.round(np.random.default_rng(t.seed).normal(0.0, 2.0, size=(3, 4)), 2)
    return t.cases(
        [
            Case("three rows, all -100", logits=logits, targets=np.full(3, -100), ignore=-100),
            Case("three rows, ignore_index=1", logits=logits, targets=np.full(3, 1), ignore=1),
        ],
        lambda logits, targets, ignore: observe(t, logits, targets, ignore_index=ignore),
    )


@test(
    "float32 logits give a float32 gradient",
    hint=3,
    reveal="summary",
    exact_dtype=True,
    tolerances=F64,
)
def float32(t):
    logits = np.round(np.random.default_rng(t.seed).normal(0.0, 2.0, size=(4, 3)), 2)
    logits = logits.astype(np.float32)
    return t.cases(
        [
            Case("every row kept", targets=np.array([2, 0, 1, 1])),
            Case("one ignored row", targets=np.array([0, -100, 2, 1])),
        ],
        lambda targets: gradient_dtype(t, logits, targets),
    )


@test(
    "one row (kept or ignored), two classes, and targets that repeat a class all work",
    hint=1,
    reveal="summary",
    tolerances=F64,
)
def small_shapes(t):
    rng = np.random.default_rng(t.seed)
    logits = np.round(rng.normal(0.0, 2.0, size=(5, 3)), 2)
    one_row = np.round(rng.normal(0.0, 2.0, size=(1, 2)), 2)
    return t.cases(
        [
            Case("one row, two classes, target 0", logits=one_row, targets=np.array([0])),
            Case("one row, two classes, target 1", logits=one_row, targets=np.array([1])),
            Case("one row, three classes", logits=logits[:1], targets=np.array([2])),
            Case("one row, ignored", logits=logits[:1], targets=np.array([-100])),
            Case("every row has target 1", logits=logits, targets=np.array([1, 1, 1, 1, 1])),
            Case("targets 2, 2, 0, 0, 2", logits=logits, targets=np.array([2, 2, 0, 0, 2])),
        ],
        lambda logits, targets: observe(t, logits, targets),
    )


@test(
    "logits and targets are left as they were: nothing is changed in place",
    hint=2,
    reveal="summary",
    tolerances=F64,
)
def inputs_unchanged(t):
    rng = np.random.default_rng(t.seed)
    logits = np.round(rng.normal(3.0, 2.0, size=(4, 3)), 2)  # no row has a max of 0
    return t.cases(
        [
            Case("every row kept", logits=logits, targets=np.array([2, 0, 1, 1]), ignore=-100),
            Case(
                "rows 1 and 3 ignored",
                logits=logits,
                targets=np.array([0, -100, 2, -100]),
                ignore=-100,
            ),
            Case("ignore_index=255", logits=logits, targets=np.array([255, 1, 255, 0]), ignore=255),
            Case(
                "float32 logits, one ignored row",
                logits=logits.astype(np.float32),
                targets=np.array([1, 2, -100, 0]),
                ignore=-100,
            ),
        ],
        lambda logits, targets, ignore: changes(t, logits, targets, ignore_index=ignore),
    )
