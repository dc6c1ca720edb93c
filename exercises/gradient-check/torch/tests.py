"""Tests for the PyTorch track of gradient-check.

Each ``f`` is a one-line function of the tests' own, wrapped so that it records a copy
of every tensor it is called with: the tests read from those copies how many calls there
were and which element each call moved, and by how much, whatever the order of the calls.
Values are compared with the tolerance the statement states (rtol 1e-6, atol 1e-7).
"""

import numpy as np
import torch

from graders.sandbox.testing import Case, example, from_code, shown_as, test

TOLERANCE = {"rtol": 1e-6, "atol": 1e-7}
F64 = torch.float64

X_ONE = torch.tensor([0.7], dtype=F64)
X_ROW = torch.tensor([1.0, -2.0, 0.5, 3.0], dtype=F64)
X_GRID = torch.tensor([[0.3, -1.2, 2.0], [1.5, -0.4, 0.9]], dtype=F64)
X_CUBE = torch.linspace(-1.5, 2.0, 8, dtype=F64).reshape(2, 2, 2)

# For the test that x is given back: values and a step that are multiples of powers of 2,
# so that x + eps - eps (or any such sum) is exactly x, and undoing the step by
# arithmetic leaves no rounding error (the statement says so).
EXACT_EPS = 2.0**-20
X_EXACT_GRID = torch.tensor([[0.25, -1.25, 2.0], [1.5, -0.375, 0.875]], dtype=F64)
X_EXACT_CUBE = X_CUBE  # -1.5, -1.0, ..., 2.0: steps of 0.5


def undone_exactly(x, eps):
    """Whether every way of moving an element by eps and back gives x exactly."""
    ways = [
        (x + eps) - eps,
        (x - eps) + eps,
        ((x + eps) - 2 * eps) + eps,
        ((x - eps) + 2 * eps) - eps,
    ]
    return all(torch.equal(way, x) for way in ways)


assert undone_exactly(X_EXACT_GRID, EXACT_EPS) and undone_exactly(X_EXACT_CUBE, EXACT_EPS)

SQUARES = "lambda x: (x ** 2).sum()"
# Each element has a weight of its own, so a value put in the wrong place shows.
WEIGHTED = (
    "lambda x: (torch.cos(x) * torch.arange(1.0, x.numel() + 1, dtype=torch.float64)"
    ".reshape(x.shape)).sum()"
)
SINES = "lambda x: (torch.sin(x) * x).sum()"
# The function each case of the values test uses, by a short name for its label.
SMOOTH = {
    "sum of squares": SQUARES,
    "sum of sin(x) * x": SINES,
    "log-sum-exp": "lambda x: torch.logsumexp(x.reshape(-1), 0)",
    "weighted cosines": WEIGHTED,
}


class Recorder:
    """``f`` for one call of numerical_gradient: runs ``code`` and keeps a copy of what
    it is given (or the name of its type, when that is not a tensor)."""

    def __init__(self, code):
        self.fn = eval(code, globals())  # the tests own one-line functions
        self.seen = []

    def __call__(self, a):
        if type(a) is torch.Tensor:
            self.seen.append(a.detach().clone())
            return self.fn(a)
        self.seen.append(type(a).__name__)
        return self.fn(torch.as_tensor(a))


def recorder(code):
    return shown_as(Recorder(code), code)


def element(index):
    return "x[" + ", ".join(str(int(i)) for i in index) + "]"


def describe(a, x, eps):
    """What one call of f was given, in words: which elements moved from x, and by how much."""
    if type(a) is str:
        return f"a {a}, not a tensor"
    if tuple(a.shape) != tuple(x.shape):
        return f"a tensor of shape {tuple(a.shape)}, not {tuple(x.shape)}"
    if a.dtype != F64:
        return f"a {a.dtype} tensor, not torch.float64"
    step = a.numpy() - x.detach().numpy()
    moved = np.argwhere(np.abs(step) > eps * 1e-3)
    if len(moved) == 0:
        return "x itself, no element moved"
    words = []
    for index in moved[:3]:
        d = step[tuple(index)]
        if abs(d - eps) <= eps * 1e-6:
            words.append(f"{element(index)} + eps")
        elif abs(d + eps) <= eps * 1e-6:
            words.append(f"{element(index)} - eps")
        else:
            words.append(f"{element(index)} moved by {d:.3g}")
    if len(moved) > 3:
        words.append(f"and {len(moved) - 3} more elements moved")
    return ", ".join(words)


def gradient(t, code, x, **eps):
    """One call of numerical_gradient: the recorder of f and the result."""
    f = recorder(code)
    return f, t.call("numerical_gradient", f, x, **eps)


def calls_seen(f, x, eps=1e-6):
    return sorted(describe(a, x, eps) for a in f.seen)


def error_value(result):
    """The error gradient_error or check_gradient returned, as a number (None if it is
    not one)."""
    try:
        return float(result)
    except (TypeError, ValueError, RuntimeError):
        return None


def as_error(result):
    """The error gradient_error or check_gradient returned, and whether it is a float."""
    return {"the error is a Python float": isinstance(result, float), "error": error_value(result)}


SHAPES = [
    Case("one element", x=X_ONE),
    Case("four elements", x=X_ROW),
    Case("a 2 x 3 tensor", x=X_GRID),
    Case("a 2 x 2 x 2 tensor", x=X_CUBE),
]


@example("the worked example: f(x) = (x ** 2).sum() at x = [1, 2]", hint=1, **TOLERANCE)
def worked_gradient(t):
    _, grad = gradient(t, SQUARES, torch.tensor([1.0, 2.0], dtype=F64))
    return {"gradient": grad}


@example("the worked example of gradient_error", hint=2, **TOLERANCE)
def worked_error(t):
    a = torch.tensor([3.0, 0.0, 1.0], dtype=F64)
    n = torch.tensor([3.0, 0.0, 0.5], dtype=F64)
    return as_error(t.call("gradient_error", a, n))


@test("f is called exactly twice per element of x", hint=1, reveal="summary", **TOLERANCE)
def calls_twice_per_element(t):
    def check(x):
        f, _ = gradient(t, SQUARES, x)
        return {"number of calls of f": len(f.seen)}

    return t.cases([SHAPES[0], SHAPES[2]], check)


@test(
    "each call of f gets x with one element moved by +eps or -eps, the others as they were",
    hint=2,
    reveal="summary",
    **TOLERANCE,
)
def one_element_moved(t):
    def check(x):
        f, _ = gradient(t, SQUARES, x)
        return {"what the calls of f were given, sorted": calls_seen(f, x)}

    return t.cases([SHAPES[1], SHAPES[2]], check)


@test("x holds its original values when you return", hint=2, reveal="summary", **TOLERANCE)
def x_given_back(t):
    def check(x):
        gradient(t, WEIGHTED, x, eps=EXACT_EPS)
        return {"changed in place": t.changed_in_place("f", "x")}

    return t.cases(
        [
            Case("a 2 x 3 tensor, eps = 2 ** -20", x=X_EXACT_GRID),
            Case("a 2 x 2 x 2 tensor, eps = 2 ** -20", x=X_EXACT_CUBE),
        ],
        check,
    )


@test("the result is a float64 tensor of x's shape", hint=2, reveal="summary", **TOLERANCE)
def shape_and_dtype(t):
    def check(x):
        _, grad = gradient(t, WEIGHTED, x)
        is_tensor = type(grad) is torch.Tensor
        return {
            "type of the result": type(grad).__name__,
            "shape of the result": tuple(grad.shape) if is_tensor else None,
            "dtype of the result": str(grad.dtype) if is_tensor else None,
        }

    return t.cases([SHAPES[1], SHAPES[3]], check)


@test(
    "element i is (f(x + eps e_i) - f(x - eps e_i)) / (2 eps)",
    hint=3,
    reveal="summary",
    **TOLERANCE,
)
def central_values(t):
    cases = [
        Case(f"{shape.label}, f = {name}", code=code, x=shape.arguments["x"])
        for shape, (name, code) in zip(SHAPES, SMOOTH.items(), strict=True)
    ]
    return t.cases(cases, lambda code, x: {"gradient": gradient(t, code, x)[1]})


@test("the eps it is given is the one used", hint=3, reveal="summary", **TOLERANCE)
def given_eps(t):
    def check(x, eps):
        f, grad = gradient(t, SINES, x, eps=eps)
        return {"what the calls of f were given, sorted": calls_seen(f, x, eps), "gradient": grad}

    return t.cases(
        [
            Case("eps = 1e-4, four elements", x=X_ROW, eps=1e-4),
            Case("eps = 1e-3, a 2 x 3 tensor", x=X_GRID, eps=1e-3),
        ],
        check,
    )


@test("f may return a Python float or a 0-d tensor", hint=2, reveal="summary", **TOLERANCE)
def float_or_0d(t):
    return t.cases(
        [
            Case("f returns a float", code="lambda x: float(torch.sin(x).sum())", x=X_ROW),
            Case("f returns a 0-d tensor", code="lambda x: (x ** 3).sum()", x=X_GRID),
        ],
        lambda code, x: {"gradient": gradient(t, code, x)[1]},
    )


@test(
    "when x requires grad, the gradient is the same and records no graph",
    hint=2,
    reveal="summary",
    **TOLERANCE,
)
def no_graph(t):
    def check(code, x):
        _, grad = gradient(t, code, x)
        return {
            "gradient": t.values(grad),
            "requires_grad of the result": getattr(grad, "requires_grad", None),
            "the result has a grad_fn": getattr(grad, "grad_fn", None) is not None,
        }

    return t.cases(
        [
            Case("x requires grad", code=SQUARES, x=X_ROW.clone().requires_grad_()),
            Case("a 2 x 3 x that requires grad", code=WEIGHTED, x=X_GRID.clone().requires_grad_()),
        ],
        check,
    )


@test("gradient_error returns a Python float, not a tensor", hint=2, reveal="summary", **TOLERANCE)
def error_is_a_float(t):
    def check(a, n):
        result = t.call("gradient_error", a, n)
        return {"the error is a Python float": isinstance(result, float)}

    return t.cases(
        [
            Case("four elements", a=X_ROW, n=X_ROW * 1.5),
            Case("2 x 3 tensors", a=X_GRID, n=X_GRID - 0.25),
        ],
        check,
    )


@test(
    "gradient_error is 0 for equal gradients, also where both are 0",
    hint=2,
    reveal="summary",
    **TOLERANCE,
)
def error_zero(t):
    def check(a, n):
        return {"error": error_value(t.call("gradient_error", a, n))}

    half = torch.tensor([[0.0], [1.0]], dtype=F64)
    return t.cases(
        [
            Case("equal, no zero", a=X_ROW, n=X_ROW.clone()),
            Case("equal 2 x 3 tensors with zeros", a=X_GRID * half, n=X_GRID * half),
            Case("all zeros", a=torch.zeros(3, dtype=F64), n=torch.zeros(3, dtype=F64)),
            Case("one zero element", a=torch.zeros(1, dtype=F64), n=torch.zeros(1, dtype=F64)),
        ],
        check,
    )


def error_pairs():
    a = torch.randn(2, 3, dtype=F64)
    b = a * (1 + 0.6 * (torch.rand(2, 3, dtype=F64) - 0.5))
    c = torch.randn(2, 2, 2, dtype=F64)
    d = c + 0.2 * torch.randn(2, 2, 2, dtype=F64)

    def row(*values):
        return torch.tensor(values, dtype=F64)

    return [
        ("close 2 x 3 tensors", a, b),
        ("close 2 x 3 tensors, swapped", b, a),
        ("2 x 2 x 2 tensors", c, d),
        ("2 x 2 x 2 tensors, swapped", d, c),
        ("opposite signs", row(1.0, -2.0, 0.5), row(1.0, 2.0, 0.5)),
        ("0 against non-zero", row(0.0, 1.0, 2.0), row(1e-3, 1.1, 2.0)),
        ("non-zero against 0", row(1e-3, 1.1, 2.0), row(0.0, 1.0, 2.0)),
        ("both 0 beside a difference", row(0.0, 4.0, -1.0), row(0.0, 3.0, -1.0)),
        ("errors of 1e-7", row(2.0, -3.0), row(2.0000002, -3.0000003)),
        # Values far below any small floor a denominator might be given.
        ("1e-9 against 0", row(1e-9, 2.0), row(0.0, 2.0)),
        ("1e-12 against 2e-12", row(1e-12, -3.0), row(2e-12, -3.0)),
    ]


@test(
    "gradient_error is the largest |a - n| / max(|a|, |n|), the same either way round",
    hint=1,
    reveal="summary",
    **TOLERANCE,
)
def error_formula(t):
    return t.cases(
        [Case(label, a=a, n=n) for label, a, n in error_pairs()],
        lambda a, n: {"error": error_value(t.call("gradient_error", a, n))},
    )


RELU = from_code("lambda x: torch.relu(x).sum()", globals())
DETACHED = from_code("lambda x: (x * x.detach()).sum()", globals())
SMOOTH_F = from_code(SINES, globals())
LOGSUMEXP = from_code("lambda x: torch.logsumexp(x.reshape(-1), 0)", globals())


@test(
    "check_gradient returns a Python float, near 0 for a correct gradient, large for a wrong one",
    hint=3,
    reveal="summary",
    **TOLERANCE,
)
def check(t):
    kink = torch.tensor([0.0, 1.5, -2.0], dtype=F64)
    return t.cases(
        [
            Case("a smooth f on a 2 x 3 tensor", f=SMOOTH_F, x=X_GRID),
            Case("logsumexp on a 2 x 2 x 2 tensor", f=LOGSUMEXP, x=X_CUBE),
            Case("relu with an element at 0", f=RELU, x=kink),
            Case("a detach inside f", f=DETACHED, x=X_ROW),
        ],
        lambda f, x: as_error(t.call("check_gradient", f, x)),
    )
