"""Tests for the PyTorch track of stable-softmax.

Each test is a table of cases, one call per case, labelled by what the case exercises.
The first tests use small values without a mask (dims and shapes), then large logits,
then masks; each of them has a float64 case among its float32 ones. Then two tests that
observe one thing only: the result's dtype, and whether the inputs were changed in place;
then autograd. Values are compared with the statement's tolerances (TOL). Unmasked
inputs stay within the statement's promise: |x| <= 1e4 in float64, |x| <= 1000 in
float32.
"""

import torch

from graders.sandbox.testing import Case, example, test

# The statement's tolerances, by dtype of the expected value.
TOL = {"float64": (1e-6, 1e-12), "float32": (1e-4, 1e-6)}
F64 = torch.float64


def call(t, fn, x, dim=None, mask=None, pass_mask=False, values_only=False):
    """One call of ``fn`` (``dim`` only when given, ``mask`` when given or asked for).
    ``values_only``: see ``in_stated_shape``."""
    kwargs = {} if dim is None else {"dim": dim}
    if mask is not None or pass_mask:
        kwargs["mask"] = mask
    result = t.call(fn, x, **kwargs)
    return {fn: in_stated_shape(result, fn, x, dim) if values_only else result}


def in_stated_shape(result, fn, x, dim):
    """The result in the statement's shape (x's for softmax, x's without dim for
    logsumexp) when it has that many elements, so that the tests of large logits and
    masks observe values only: a shape bug is the dim tests' to report."""
    kept = (-1 if dim is None else dim) % x.dim()
    shape = x.shape if fn == "softmax" else x.shape[:kept] + x.shape[kept + 1 :]
    if isinstance(result, torch.Tensor) and result.numel() == shape.numel():
        return result.reshape(shape)
    return result


def small(*shape, dtype=torch.float32):
    """Small values from the seeded generator, rounded so that a failing case reads easily."""
    return torch.round(torch.randn(shape, dtype=F64), decimals=2).to(dtype)


def tensor(values, dtype=torch.float32):
    return torch.tensor(values, dtype=dtype)


def dtype_of(value):
    """The dtype of a result as text ("torch.float32"), or its type's name when it has none."""
    dtype = getattr(value, "dtype", None)
    return type(value).__name__ if dtype is None else str(dtype)


def both(t, rows):
    """A case per row (label, x, dim) and function: logsumexp, then softmax."""
    return t.cases(
        [
            Case(f"{fn}, {about}", fn=fn, x=x, dim=dim)
            for fn in ("logsumexp", "softmax")
            for about, x, dim in rows
        ],
        lambda fn, x, dim: call(t, fn, x, dim, values_only=True),
    )


def masked(t, rows):
    """A softmax case per row (label, x, dim, mask)."""
    return t.cases(
        [Case(about, x=x, dim=dim, mask=mask) for about, x, dim, mask in rows],
        lambda x, dim, mask: call(t, "softmax", x, dim, mask, values_only=True),
    )


@example("logsumexp of [1, 2, 3] and of [1000, 1000]", hint=1, tolerances=TOL)
def example_logsumexp(t):
    return t.cases(
        [
            Case("x = [1, 2, 3]", x=tensor([1.0, 2.0, 3.0])),
            Case("x = [1000, 1000]", x=tensor([1000.0, 1000.0])),
        ],
        lambda x: call(t, "logsumexp", x),
    )


@example("softmax of [1, 2, 3] and of [1000, 1000]", hint=1, tolerances=TOL)
def example_softmax(t):
    return t.cases(
        [
            Case("x = [1, 2, 3]", x=tensor([1.0, 2.0, 3.0])),
            Case("x = [1000, 1000]", x=tensor([1000.0, 1000.0])),
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
                tensor([1.0, 2.0, 3.0]),
                None,
                torch.tensor([True, False, True]),
            ),
            (
                "x = [[1, 2], [3, 4]], mask = [[True, True], [False, False]]",
                tensor([[1.0, 2.0], [3.0, 4.0]]),
                None,
                torch.tensor([[True, True], [False, False]]),
            ),
        ],
    )


F32 = torch.float32
DIMS = [
    ("1-D, default dim", (5,), None, F32),
    ("2-D, default dim", (3, 4), None, F32),
    ("2-D, dim=0", (3, 4), 0, F32),
    ("2-D, dim=-2", (4, 3), -2, F32),
    ("square 2-D, dim=0", (3, 3), 0, F32),
    ("3-D, float64, dim=1", (2, 3, 4), 1, F64),
    ("3-D, dim=-3", (3, 2, 2), -3, F32),
    ("3-D, a length-1 middle dim, dim=2", (2, 1, 3), 2, F32),
]


@test(
    "logsumexp reduces along the given dim (negative ones too) and removes it from the shape",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def logsumexp_along_dim(t):
    rows = [(about, small(*shape, dtype=d), dim) for about, shape, dim, d in DIMS]
    return t.cases(
        [Case(about, x=x, dim=dim) for about, x, dim in rows],
        lambda x, dim: call(t, "logsumexp", x, dim),
    )


@test(
    "softmax normalises along the given dim (negative ones too) and keeps x's shape",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def softmax_along_dim(t):
    rows = [(about, small(*shape, dtype=d), dim) for about, shape, dim, d in DIMS]
    x = small(2, 3)
    return t.cases(
        [Case(about, x=x, dim=dim, none=False) for about, x, dim in rows]
        + [Case("2-D, mask=None given", x=x, dim=None, none=True)],
        lambda x, dim, none: call(t, "softmax", x, dim, None, pass_mask=none),
    )


@test(
    "large logits (1000, -1000, mixed) give no overflow and no NaN",
    hint=1,
    tolerances=TOL,
    reveal="summary",
)
def large_logits(t):
    rows = [
        ("[998, 999, 1000]", tensor([998.0, 999.0, 1000.0]), None),
        ("[-1000, -1000, -1000]", tensor([-1000.0, -1000.0, -1000.0]), None),
        ("[1000, -1000, 0]", tensor([1000.0, -1000.0, 0.0]), None),
        (
            "rows of very different magnitudes",
            tensor([[1000.0, 999.0, 998.0], [-997.0, -998.0, -1000.0], [0.5, -0.5, 0.0]]),
            None,
        ),
        (
            "columns of very different magnitudes, dim=0",
            tensor([[900.0, -500.0], [899.0, -502.0], [902.0, -500.5]]),
            0,
        ),
        (
            "3-D, float64, values in the thousands, dim=1",
            tensor(
                [[[9999.0, -5000.0], [9998.5, -5001.0]], [[-700.0, 800.0], [-701.0, 799.0]]],
                F64,
            ),
            1,
        ),
    ]
    return both(t, rows)


@test(
    "masked entries get 0 and the unmasked ones sum to 1 along the dim",
    hint=2,
    tolerances=TOL,
    reveal="summary",
)
def masked_entries(t):
    rows = [
        ("1-D, one entry masked", small(4), None, torch.tensor([True, True, False, True])),
        (
            "2-D, float64, a different mask in each row",
            small(3, 4, dtype=F64),
            None,
            torch.tensor(
                [[True, False, True, False], [False, True, True, True], [True, True, True, False]]
            ),
        ),
        (
            "2-D, dim=0, a different mask in each column",
            small(3, 4),
            0,
            torch.tensor(
                [[True, False, True, True], [False, True, True, False], [True, True, False, False]]
            ),
        ),
        (
            "3-D, dim=1",
            small(2, 3, 2),
            1,
            torch.tensor(
                [
                    [[True, False], [False, True], [True, True]],
                    [[False, False], [True, False], [False, True]],
                ]
            ),
        ),
        (
            "2-D, one entry left in each row",
            small(2, 3),
            -1,
            torch.tensor([[False, True, False], [False, False, True]]),
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
            tensor([0.5, 1e4, -0.25, 1e4]),
            None,
            torch.tensor([True, False, True, False]),
        ),
        (
            "1-D, float64, masked 1e4, kept -1e4",
            tensor([1e4, -1e4, -9999.0], F64),
            None,
            torch.tensor([False, True, True]),
        ),
        (
            "2-D, masked entries hold -1e4 and 1e4",
            tensor([[1.5, -1e4, 0.25], [1e4, 2.0, -1.0]]),
            None,
            torch.tensor([[True, False, True], [False, True, True]]),
        ),
        (
            "2-D, dim=0, masked 5000 above kept values",
            tensor([[5000.0, 0.1], [0.3, 5000.0], [-0.2, 0.4]]),
            0,
            torch.tensor([[False, True], [True, False], [True, True]]),
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
    mask_3d = torch.ones(2, 2, 3, dtype=torch.bool)
    mask_3d[0, 1] = False
    mask_3d[1, 0] = False
    rows = [
        ("1-D, every entry masked", small(3), None, torch.zeros(3, dtype=torch.bool)),
        (
            "2-D, the middle row masked",
            small(3, 3),
            None,
            torch.tensor([[True, False, True], [False, False, False], [True, True, False]]),
        ),
        (
            "2-D, dim=0, one column masked",
            small(3, 2),
            0,
            torch.tensor([[False, True], [False, False], [False, True]]),
        ),
        ("3-D, float64, two slices masked", small(2, 2, 3, dtype=F64), -1, mask_3d),
        ("2-D, every entry masked", small(2, 3), None, torch.zeros(2, 3, dtype=torch.bool)),
    ]
    return masked(t, rows)


@test(
    "the result has x's dtype: float32 stays float32, float64 stays float64",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def keeps_dtype(t):
    mask = torch.tensor([[True, False, True], [False, False, False]])
    rows = [
        ("logsumexp, float64, 1-D", "logsumexp", small(4, dtype=F64), None, None),
        ("logsumexp, float64, 3-D, dim=0", "logsumexp", small(2, 2, 3, dtype=F64), 0, None),
        ("logsumexp, float32, 3-D, dim=1", "logsumexp", small(2, 3, 2), 1, None),
        ("softmax, float64, 2-D, dim=0", "softmax", small(2, 3, dtype=F64), 0, None),
        ("softmax, float64, with a mask", "softmax", small(2, 3, dtype=F64), None, mask),
        ("softmax, float32, with a mask", "softmax", small(2, 3), None, mask),
    ]

    def check(fn, x, dim, mask):
        result = call(t, fn, x, dim, mask)[fn]
        return {"dtype of the result": dtype_of(result)}

    return t.cases(
        [Case(about, fn=fn, x=x, dim=dim, mask=m) for about, fn, x, dim, m in rows], check
    )


@test(
    "x and mask are left unchanged: nothing is written into them",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def leaves_inputs_alone(t):
    mask = torch.tensor([[True, False], [False, False], [True, True]])
    rows = [
        ("logsumexp, 2-D, dim=0", "logsumexp", small(3, 2), {"dim": 0}),
        ("softmax, 2-D, no mask", "softmax", small(3, 2), {}),
        ("softmax, 2-D, dim=0, with a mask", "softmax", small(3, 2), {"dim": 0, "mask": mask}),
    ]

    def check(fn, x, kwargs):
        t.call(fn, x, **kwargs)
        # As text ("x", "mask", "x, mask" or "nothing"), so that a failure names them.
        return {"changed in place": ", ".join(t.changed_in_place("x")) or "nothing"}

    return t.cases([Case(about, fn=fn, x=x, kwargs=kw) for about, fn, x, kw in rows], check)


def with_gradient(t, fn, x, dim, mask, weights):
    """Call ``fn`` on ``x`` (which requires grad), backpropagate ``(result * weights).sum()``
    when the result is attached to the graph, and observe only autograd: whether the
    result is on the graph, and ``x.grad`` (the result's values are other tests' rules)."""
    result = call(t, fn, x, dim, mask)[fn]
    attached = isinstance(result, torch.Tensor) and result.grad_fn is not None
    if attached and result.numel() == weights.numel():  # a shape bug is another test's
        (result.reshape(weights.shape) * weights).sum().backward()
    return {"the result has a grad_fn": attached, "gradient reaching x": x.grad}


@test(
    "results stay on the autograd graph and pass the right gradients back to x",
    hint=3,
    tolerances=TOL,
    reveal="summary",
)
def gradients(t):
    def leaf(*shape, dtype=F64):
        return small(*shape, dtype=dtype).requires_grad_()

    mask = torch.tensor([[True, False, True, True], [False, True, True, False]])
    rows = [
        ("logsumexp, 1-D", "logsumexp", leaf(4), None, None, small(dtype=F64)),
        ("logsumexp, 2-D, dim=0", "logsumexp", leaf(3, 2), 0, None, small(2, dtype=F64)),
        (
            "logsumexp, float32, 3-D",
            "logsumexp",
            leaf(2, 2, 3, dtype=torch.float32),
            None,
            None,
            small(2, 2),
        ),
        ("softmax, 1-D", "softmax", leaf(4), None, None, small(4, dtype=F64)),
        ("softmax, 2-D, dim=0", "softmax", leaf(3, 2), 0, None, small(3, 2, dtype=F64)),
        (
            "softmax, float32, 2-D",
            "softmax",
            leaf(2, 3, dtype=torch.float32),
            None,
            None,
            small(2, 3),
        ),
        ("softmax, 2-D, with a mask", "softmax", leaf(2, 4), None, mask, small(2, 4, dtype=F64)),
        (
            "softmax, masked entries hold 1e4 and -1e4",
            "softmax",
            tensor([[0.5, 1e4, -0.25, 1e4], [-1e4, 0.75, -0.5, 1e4]], F64).requires_grad_(),
            None,
            torch.tensor([[True, False, True, False], [False, True, True, False]]),
            small(2, 4, dtype=F64),
        ),
        (
            "softmax, float32, dim=0, a masked 1e4 in each column",
            "softmax",
            tensor([[1e4, 0.2], [-0.4, 1e4], [0.1, -1e4]]).requires_grad_(),
            0,
            torch.tensor([[False, True], [True, False], [True, False]]),
            small(3, 2),
        ),
    ]
    return t.cases(
        [Case(about, fn=fn, x=x, dim=dim, mask=m, weights=w) for about, fn, x, dim, m, w in rows],
        lambda fn, x, dim, mask, weights: with_gradient(t, fn, x, dim, mask, weights),
    )
