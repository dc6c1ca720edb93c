"""Tests for custom-autograd-function (torch): softplus and ste_clamp as custom Functions.

The reference's observations are the expectation: no expected value is written here.
Each test observes only what its rule (its name) is about, so that a solution keeping
that rule passes its test whatever its other bugs: the values tests observe results, the
gradient tests gradients, the custom-Function test only the kind of grad_fn, the
unchanged-input test only the parameter's values. Values and gradients are compared with
the statement's tolerances.
"""

import torch
from torch import nn

from graders.sandbox.testing import Case, example, shown_as, test

# The statement's tolerances, for values and gradients.
TOLERANCES = {"float64": (1e-9, 1e-12), "float32": (1e-5, 1e-6)}

# The float64 stability cases. Besides large |x|, moderate values where e^-|x| is still far
# above float64's tolerance: shortcuts such as "softplus(x) = x once x > 10" or "sigmoid is
# exactly 1 (or 0) once |x| > 15" fail there, though they pass in float32 and at |x| >= 30.
FLOAT64_VALUES = [
    -1000.0, -100.0, -35.0, -30.0, -27.0, -25.0, -20.0, -16.0, -12.0, -10.5, -5.0,
    0.0, 5.0, 10.5, 12.0, 16.0, 17.5, 20.0, 25.0, 30.0, 35.0, 100.0, 1000.0,
]  # fmt: skip


def node_kind(y):
    """What kind of node ``y.grad_fn`` is, in words: a custom Function's, a torch
    operation's (named), or none. Never the values of ``y``."""
    if not isinstance(y, torch.Tensor):
        return "not a tensor"
    node = y.grad_fn
    if node is None:
        return "no grad_fn"
    if isinstance(node, torch.autograd.function.BackwardCFunction):
        return "the node of a custom torch.autograd.Function"
    return f"{type(node).__name__}: the node of a torch operation, not of a custom Function"


def requires_grad(y):
    """Whether ``y`` requires grad (None when it is not a tensor)."""
    return bool(y.requires_grad) if isinstance(y, torch.Tensor) else None


def all_finite(y):
    """Whether every value of ``y`` is finite (None when ``y`` is not a tensor)."""
    if not isinstance(y, torch.Tensor):
        return None
    return bool(torch.isfinite(y.detach()).all())


def outcome(action):
    """What ``action()`` returned, or what it raised (first line of the message)."""
    try:
        return action()
    except Exception as error:  # a wrong backward raises; that is the finding
        lines = str(error).strip().splitlines()
        return f"raised {type(error).__name__}: {lines[0] if lines else ''}".strip()


def backward_pass(y, loss_of):
    """Run ``loss_of(y).backward()`` when ``y`` requires grad: ``"finished"``, or what it
    raised, or why it did not run."""
    if not (isinstance(y, torch.Tensor) and y.requires_grad):
        return "not run: the result does not require grad"

    def run():
        loss_of(y).backward()
        return "finished"

    return outcome(run)


def leaf(values, dtype):
    """A leaf tensor of ``values`` that requires grad."""
    return torch.tensor(values, dtype=dtype, requires_grad=True)


def weighted_gradient(t, name, x, args, weights, how):
    """Call ``name(x, *args)``, backpropagate ``(y * weights).sum()`` with ``.backward()`` or
    ``torch.autograd.grad``, and observe the gradient of ``x`` (not the result)."""
    y = t.call(name, x, *args)
    if how == "backward":
        return {
            "backward pass": backward_pass(y, lambda y: (y * weights).sum()),
            "gradient of x": x.grad,
        }
    found = "not run: the result does not require grad"
    if isinstance(y, torch.Tensor) and y.requires_grad:
        found = outcome(lambda: torch.autograd.grad((y * weights).sum(), [x]))
    return {"torch.autograd.grad(loss, [x])": found}


@test(
    "softplus gives log(1 + exp(x)) with the shape and dtype of x",
    hint=1,
    tolerances=TOLERANCES,
    exact_dtype=True,
    reveal="summary",
)
def softplus_values(t):
    return t.cases(
        [
            Case("a 0-d float64 tensor", x=torch.tensor(0.75, dtype=torch.float64)),
            Case("a float32 vector", x=torch.linspace(-6.0, 6.0, 9)),
            Case("a 2x3 float64 matrix", x=3 * torch.randn(2, 3, dtype=torch.float64)),
            Case("a 2x2x3 float32 tensor", x=4 * torch.randn(2, 2, 3)),
            Case("an empty float32 tensor of shape (0, 3)", x=torch.zeros(0, 3)),
        ],
        lambda x: {"result": t.call("softplus", x)},
    )


@test(
    "ste_clamp gives x clamped to [low, high] with the shape and dtype of x",
    hint=2,
    tolerances=TOLERANCES,
    exact_dtype=True,
    reveal="summary",
)
def ste_clamp_values(t):
    return t.cases(
        [
            Case(
                "a float32 vector, bounds 0.0 and 1.0", x=torch.linspace(-2, 3, 11), lo=0.0, hi=1.0
            ),
            Case(
                "a float64 matrix, negative bounds",
                x=2 * torch.randn(3, 4, dtype=torch.float64),
                lo=-1.5,
                hi=-0.25,
            ),
            Case(
                "a 0-d float64 tensor, int bounds",
                x=torch.tensor(2.5, dtype=torch.float64),
                lo=-1,
                hi=2,
            ),
            Case(
                "low equal to high, some values equal to them",
                x=torch.tensor([[-1.0, 0.5, 2.0], [0.5, 0.25, 3.0]]),
                lo=0.5,
                hi=0.5,
            ),
            Case("every value inside the bounds", x=0.4 * torch.rand(2, 2, 2), lo=-1.0, hi=1.0),
            Case("an empty float64 tensor", x=torch.zeros(0, dtype=torch.float64), lo=0.0, hi=1.0),
        ],
        lambda x, lo, hi: {"result": t.call("ste_clamp", x, lo, hi)},
    )


@test(
    "each result comes from your own torch.autograd.Function",
    hint=1,
    tolerances=TOLERANCES,
    reveal="summary",
)
def custom_function(t):
    def check(name, x, args):
        y = t.call(name, x, *args)
        return {"the result's grad_fn": node_kind(y), "the result requires grad": requires_grad(y)}

    return t.cases(
        [
            Case(
                "softplus, x requires grad",
                name="softplus",
                x=leaf([-1.0, 0.5, 2.0], torch.float64),
                args=(),
            ),
            Case(
                "ste_clamp, x requires grad",
                name="ste_clamp",
                x=leaf([-1.0, 0.5, 2.0], torch.float32),
                args=(0.0, 1.0),
            ),
            Case(
                "softplus, x needs no grad", name="softplus", x=torch.tensor([0.5, -0.5]), args=()
            ),
        ],
        check,
    )


@test(
    "x is left unchanged, even when it is a model parameter",
    hint=2,
    tolerances=TOLERANCES,
    reveal="summary",
)
def input_unchanged(t):
    def check(name, x, args):
        y = t.call(name, x, *args)
        after_call = t.values(x)
        # Run the backward pass too (a backward may change the saved x in place); whether
        # it succeeds and what it computes are other tests' business: only x is observed.
        backward_pass(y, torch.sum)
        return {
            "the parameter x after the call": after_call,
            "the parameter x after the backward pass": t.values(x),
        }

    values = [-2.0, -0.5, 0.25, 1.5, 3.0]
    code = f"nn.Parameter(torch.tensor({values}))"
    return t.cases(
        [
            Case(
                "softplus",
                name="softplus",
                x=shown_as(nn.Parameter(torch.tensor(values)), code),
                args=(),
            ),
            Case(
                "ste_clamp, bounds -1.0 and 1.0",
                name="ste_clamp",
                x=shown_as(nn.Parameter(torch.tensor(values)), code),
                args=(-1.0, 1.0),
            ),
        ],
        check,
    )


@test(
    "softplus passes torch.autograd.gradcheck in float64",
    hint=2,
    tolerances=TOLERANCES,
    reveal="summary",
)
def gradcheck(t):
    values = [-3.0, -0.4, 0.0, 1.3, 4.0]
    x = leaf(values, torch.float64)

    def check():
        torch.autograd.gradcheck(lambda a: t.call("softplus", a), (x,))
        return "passes"

    key = f"torch.autograd.gradcheck(softplus, (x,)) with x = {values}, float64, requires grad"
    return {key: outcome(check)}


@test(
    "softplus's gradient is grad_output * sigmoid(x) and ste_clamp's is grad_output itself, "
    "with .backward() and with torch.autograd.grad",
    hint=2,
    tolerances=TOLERANCES,
    reveal="summary",
)
def gradients(t):
    rows = []
    for kind, how in (("float32", "backward"), ("float64", "torch.autograd.grad")):
        dtype = getattr(torch, kind)
        x = (3 * torch.randn(2, 3, dtype=dtype)).requires_grad_()
        w = torch.randn(2, 3, dtype=dtype)
        rows.append(Case(f"softplus, {kind}, {how}", name="softplus", x=x, args=(), w=w, how=how))
    for kind, how in (("float64", "backward"), ("float32", "torch.autograd.grad")):
        dtype = getattr(torch, kind)
        # Values below, inside and above the bounds, in a shuffled order.
        x = torch.linspace(-2.0, 2.5, 8, dtype=dtype)[torch.randperm(8)].requires_grad_()
        w = torch.randn(8, dtype=dtype)
        rows.append(
            Case(f"ste_clamp, {kind}, {how}", name="ste_clamp", x=x, args=(-0.5, 0.8), w=w, how=how)
        )
    chained = leaf([-1.5, -0.2, 0.3, 0.9, 2.0], torch.float64)
    chain_weights = torch.randn(5, dtype=torch.float64)

    observed = t.cases(
        rows, lambda name, x, args, w, how: weighted_gradient(t, name, x, args, w, how)
    )

    # A chain: ste_clamp(softplus(2 * x - 1), 0.5, 1.5), so neither input is a leaf.
    h = t.call("softplus", 2 * chained - 1)
    y = t.call("ste_clamp", h, 0.5, 1.5)
    found = outcome(lambda: torch.autograd.grad((y * chain_weights).sum(), [chained]))
    observed["gradient of x through ste_clamp(softplus(2 * x - 1), 0.5, 1.5)"] = found
    return observed


@test(
    "softplus stays finite and accurate for any x, from moderate values up to |x| = 1000",
    hint=1,
    tolerances=TOLERANCES,
    reveal="summary",
)
def stable_values(t):
    # float32 keeps a coarse grid: its tolerance admits shortcuts that float64's refuses.
    float32_values = [-1000.0, -100.0, -30.0, -20.0, 0.0, 20.0, 30.0, 100.0, 1000.0]

    def check(x):
        y = t.call("softplus", x)
        return {"result": y, "every value is finite": all_finite(y)}

    return t.cases(
        [
            Case("float32 from -1000 to 1000", x=torch.tensor(float32_values, dtype=torch.float32)),
            Case(
                "float64 from -1000 to 1000, moderate values included",
                x=torch.tensor(FLOAT64_VALUES, dtype=torch.float64),
            ),
        ],
        check,
    )


@test(
    "the gradient of softplus stays finite and accurate for any x, "
    "from moderate values up to |x| = 1000",
    hint=2,
    tolerances=TOLERANCES,
    reveal="summary",
)
def stable_gradients(t):
    # float32 keeps a coarse grid: its tolerance admits shortcuts that float64's refuses.
    float32_values = [-1000.0, -100.0, -30.0, 0.0, 30.0, 100.0, 1000.0]

    def check(x):
        y = t.call("softplus", x)
        return {
            "backward pass": backward_pass(y, torch.sum),
            "gradient of x": x.grad,
            "every gradient is finite": all_finite(x.grad),
        }

    return t.cases(
        [
            Case("float32 from -1000 to 1000", x=leaf(float32_values, torch.float32)),
            Case(
                "float64 from -1000 to 1000, moderate values included",
                x=leaf(FLOAT64_VALUES, torch.float64),
            ),
        ],
        check,
    )


@example("softplus(0) is ln 2 and its gradient is 1/2", hint=1, tolerances=TOLERANCES)
def worked_softplus(t):
    x = torch.tensor(0.0, requires_grad=True)
    y = t.call("softplus", x)
    return {"softplus(x)": y, "y.backward()": backward_pass(y, torch.sum), "gradient of x": x.grad}


@example(
    "ste_clamp([-2.0, 0.5, 3.0], 0, 1) clamps, and the gradient passes straight through",
    hint=2,
    tolerances=TOLERANCES,
)
def worked_ste_clamp(t):
    x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    y = t.call("ste_clamp", x, 0, 1)
    return {
        "ste_clamp(x, 0, 1)": y,
        "y.sum().backward()": backward_pass(y, torch.sum),
        "gradient of x": x.grad,
    }
