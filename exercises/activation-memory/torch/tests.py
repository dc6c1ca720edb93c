"""Tests for the PyTorch track of activation-memory.

Each test sweeps many small functions and observes, for each, the number of bytes
``saved_bytes`` reports (an int, compared exactly): ``{"bytes saved by x.sin()": 140}``.
A wrong rule therefore fails with the function it gets wrong named in the message.

In the hidden tests, unless a key says otherwise, ``x`` and ``y`` are float32 tensors of
shape (5, 7) that require grad (140 bytes each), ``b`` a float32 tensor of shape (7,) that
requires grad (28 bytes), ``c`` a float32 tensor of shape (5, 7) that does not; other
tensors named with their shape (``w``, ``v``, ``table``, ``image``) are float32 and require
grad, index tensors (``i``, ``target``) are int64. The statement says the same.

Every function is wrapped by ``watch``, which keeps each output it returns in a list held
by the test: every saved tensor stays alive until the test ends, as the statement
promises, so storages told apart by address or by object give the same answer. The inputs
are built before the call, outside the learner's hooks, and the wrapper itself creates no
tensor, so nothing the test does is counted.
"""

import torch
import torch.nn.functional as F
from torch import nn

from graders.sandbox.testing import example, test


def watch(fn):
    """``fn`` wrapped to keep what it returns; ``.outputs`` holds one entry per call."""
    outputs = []

    def watched(*args):
        out = fn(*args)
        outputs.append(out)
        return out

    watched.outputs = outputs
    return watched


def measure(t, cases, label="bytes saved by"):
    """Call saved_bytes on each (description, fn, inputs); observe the bytes of each.

    Returns the observations and, for each description, the watched function."""
    observed, watched = {}, {}
    for description, fn, inputs in cases:
        watched[description] = watch(fn)
        observed[f"{label} {description}"] = t.call("saved_bytes", watched[description], *inputs)
    return observed, watched


def attempt(action):
    """``"finished"`` when ``action()`` returns, otherwise what it raised (first line)."""
    try:
        action()
    except Exception as error:  # a saved tensor the hooks did not give back fails here
        lines = str(error).strip().splitlines()
        return f"raised {type(error).__name__}: {lines[0] if lines else ''}".strip()
    return "finished"


# --- functions that need statements (the others are lambdas in the tests) ---


def sin_under_no_grad(a):
    with torch.no_grad():
        return a.sin()


def mlp_under_no_grad(a, layers):
    with torch.no_grad():
        return layers(a)


def sin_under_inference_mode(a):
    with torch.inference_mode():
        return a.sin()


def exp_in_place_on_columns(a):
    h = a.clone()
    h[:, :2].exp_()
    return h


def relu_in_place_on_row(a):
    h = a * 2.0
    h[1].relu_()
    return h


def exp_twice_shared(a):
    e = a.exp()
    return e * e


def detached_alias_times_x(a):
    """``d`` shares ``a``'s storage without being a view of it (``d._base`` is None)."""
    d = a.detach().requires_grad_()
    return d * a


class SaveMaskAndPositions(torch.autograd.Function):
    """Keeps its input, a bool mask and int64 positions with ctx.save_for_backward."""

    @staticmethod
    def forward(ctx, a):
        mask = a > 0
        positions = torch.arange(a.shape[0])
        ctx.save_for_backward(a, mask, positions)
        return a * mask

    @staticmethod
    def backward(ctx, grad):
        _, mask, _ = ctx.saved_tensors
        return grad * mask


def leaves(shape=(5, 7)):
    return torch.randn(*shape, requires_grad=True)


# --- visible examples (the statement's worked example) ---


@example("x.sin() saves x, x.exp() saves its output, x * 3 saves nothing", hint=1)
def example_single_ops(t):
    x = torch.randn(4, 3, requires_grad=True)
    y = torch.randn(4, 3, requires_grad=True)
    observed, _ = measure(
        t,
        [
            ("x.sin()", lambda a: a.sin(), [x]),
            ("x.exp()", lambda a: a.exp(), [x]),
            ("x * 3", lambda a: a * 3, [x]),
            ("x * y", lambda a, b: a * b, [x, y]),
        ],
    )
    return observed


@example("x * x, a view of x, a Linear layer, and torch.no_grad()", hint=2)
def example_shared_storage(t):
    x = torch.randn(4, 3, requires_grad=True)
    observed, _ = measure(
        t,
        [
            ("x * x", lambda a: a * a, [x]),
            ("x[::2].sin()", lambda a: a[::2].sin(), [x]),
            ("nn.Linear(3, 2) on x", nn.Linear(3, 2), [x]),
            ("x.sin() inside torch.no_grad()", sin_under_no_grad, [x]),
        ],
    )
    return observed


# --- hidden tests ---


@test(
    "each operation counts exactly what autograd saves for it; fn runs once",
    hint=1,
    reveal="summary",
)
def single_operations(t):
    x, y, b = leaves(), leaves(), leaves((7,))
    c = torch.randn(7)
    w = leaves((7, 3))
    observed, watched = measure(
        t,
        [
            ("x.sin()", lambda a: a.sin(), [x]),
            ("x.cos()", lambda a: a.cos(), [x]),
            ("x.exp()", lambda a: a.exp(), [x]),
            ("x.tanh()", lambda a: a.tanh(), [x]),
            ("torch.sigmoid(x)", torch.sigmoid, [x]),
            ("torch.relu(x)", torch.relu, [x]),
            ("x.softmax(dim=1)", lambda a: a.softmax(dim=1), [x]),
            ("x ** 2", lambda a: a**2, [x]),
            ("x.abs().sqrt()", lambda a: a.abs().sqrt(), [x]),
            ("x * y", lambda a, v: a * v, [x, y]),
            ("x / y", lambda a, v: a / v, [x, y]),
            ("x * b", lambda a, v: a * v, [x, b]),
            ("x * c, c of shape (7,) needing no grad", lambda a, v: a * v, [x, c]),
            ("x @ w, w of shape (7, 3)", lambda a, v: a @ v, [x, w]),
            ("x.sin().exp()", lambda a: a.sin().exp(), [x]),
            ("(x * 3).sin()", lambda a: (a * 3).sin(), [x]),
            ("x + y", lambda a, v: a + v, [x, y]),
            ("x * 3", lambda a: a * 3, [x]),
            ("x.sum()", lambda a: a.sum(), [x]),
            ("x.mean()", lambda a: a.mean(), [x]),
            ("x.sin() on an empty x of shape (0, 7)", lambda a: a.sin(), [leaves((0, 7))]),
        ],
    )
    observed["times fn ran"] = {name: len(fn.outputs) for name, fn in watched.items()}
    return observed


@test("a storage saved by several tensors counts once", hint=2, reveal="summary")
def shared_storage(t):
    x, w, v = leaves(), leaves((7, 4)), leaves((4, 3))
    mlp = nn.Sequential(nn.Linear(7, 6), nn.ReLU(), nn.Linear(6, 2))
    observed, _ = measure(
        t,
        [
            ("x * x", lambda a: a * a, [x]),
            ("e = x.exp(); e * e", exp_twice_shared, [x]),
            ("x.exp() * x.exp()", lambda a: a.exp() * a.exp(), [x]),
            ("torch.sigmoid(x) * x", lambda a: torch.sigmoid(a) * a, [x]),
            ("x @ x.T", lambda a: a @ a.T, [x]),
            ("x[0] * x[1]", lambda a: a[0] * a[1], [x]),
            ("d = x.detach().requires_grad_(); d * x", detached_alias_times_x, [x]),
            (
                "x[:2].sin().sum() + x[3:].sin().sum()",
                lambda a: a[:2].sin().sum() + a[3:].sin().sum(),
                [x],
            ),
            ("x.T.sin() * x.sin().T", lambda a: a.T.sin() * a.sin().T, [x]),
            ("F.normalize(x, dim=1)", lambda a: F.normalize(a, dim=1), [x]),
            ("torch.relu(x @ w) @ v, w (7, 4), v (4, 3)", lambda a: torch.relu(a @ w) @ v, [x]),
            ("Linear(7, 6) -> ReLU -> Linear(6, 2) on x", mlp, [x]),
        ],
    )
    return observed


@test("a saved view counts the whole storage it keeps alive", hint=2, reveal="summary")
def views(t):
    x, b = leaves(), leaves((7,))
    observed, _ = measure(
        t,
        [
            ("x[::2].sin()", lambda a: a[::2].sin(), [x]),
            ("x[1].sin()", lambda a: a[1].sin(), [x]),
            ("x[:, 1:3].sin()", lambda a: a[:, 1:3].sin(), [x]),
            ("x.diagonal().sin()", lambda a: a.diagonal().sin(), [x]),
            ("x.view(35)[10:20].sin()", lambda a: a.view(35)[10:20].sin(), [x]),
            ("x.T.sin()", lambda a: a.T.sin(), [x]),
            ("x.flatten().sin()", lambda a: a.flatten().sin(), [x]),
            ("(x * 2)[0].sin()", lambda a: (a * 2)[0].sin(), [x]),
            ("x[1:3].exp()", lambda a: a[1:3].exp(), [x]),
            ("b.expand(5, 7).sin()", lambda a: a.expand(5, 7).sin(), [b]),
            ("h = x.clone(); h[:, :2].exp_()", exp_in_place_on_columns, [x]),
            (
                "torch.cat([x[:, :2].exp(), x[:, 2:]], dim=1)",
                lambda a: torch.cat([a[:, :2].exp(), a[:, 2:]], dim=1),
                [x],
            ),
            ("h = x * 2; h[1].relu_()", relu_in_place_on_row, [x]),
        ],
    )
    return observed


@test(
    "saved tensors of every dtype count: masks, indices, float64, float16", hint=2, reveal="summary"
)
def dtypes(t):
    x, y = leaves(), leaves()
    table = leaves((10, 4))
    image = leaves((1, 2, 4, 4))
    observed, _ = measure(
        t,
        [
            ("torch.where(x > 0, x, y)", lambda a, v: torch.where(a > 0, a, v), [x, y]),
            ("x.masked_fill(x > 0, 0.0)", lambda a: a.masked_fill(a > 0, 0.0), [x]),
            ("x * (x > 0)", lambda a: a * (a > 0), [x]),
            ("x.max(dim=1).values", lambda a: a.max(dim=1).values, [x]),
            ("x.topk(2, dim=1).values", lambda a: a.topk(2, dim=1).values, [x]),
            ("x.sort(dim=1).values", lambda a: a.sort(dim=1).values, [x]),
            (
                "x[i], i an int64 tensor of 3 indices",
                lambda a, i: a[i],
                [x, torch.tensor([4, 0, 4])],
            ),
            (
                "x.gather(1, i), i an int64 tensor of shape (5, 2)",
                lambda a, i: a.gather(1, i),
                [x, torch.randint(0, 7, (5, 2))],
            ),
            (
                "F.embedding(i, table), i an int64 tensor of 6 indices, table (10, 4)",
                F.embedding,
                [torch.tensor([1, 2, 2, 7, 9, 0]), table],
            ),
            (
                "F.cross_entropy(x, target), target an int64 tensor of 5 classes",
                F.cross_entropy,
                [x, torch.tensor([0, 6, 3, 3, 1])],
            ),
            ("F.max_pool2d(image, 2), image (1, 2, 4, 4)", lambda a: F.max_pool2d(a, 2), [image]),
            ("F.dropout(x, 0.5, training=True)", lambda a: F.dropout(a, 0.5, training=True), [x]),
            ("x.double().sin()", lambda a: a.double().sin(), [x]),
            ("x.half().sin()", lambda a: a.half().sin(), [x]),
            ("x.bfloat16().exp()", lambda a: a.bfloat16().exp(), [x]),
            (
                "a custom autograd.Function saving x, x > 0 and torch.arange(5)",
                SaveMaskAndPositions.apply,
                [x],
            ),
        ],
    )
    return observed


@test(
    "inputs and parameters count when autograd saves them; backward still works",
    hint=3,
    reveal="summary",
)
def inputs_and_parameters(t):
    x = leaves()
    c = torch.randn(5, 7)
    image = leaves((1, 2, 5, 5))
    frozen = nn.Linear(7, 3)
    frozen.weight.requires_grad_(False)
    weight_only = nn.Linear(7, 3)
    modules = {
        "nn.Linear(7, 3) on x": (nn.Linear(7, 3), x),
        "nn.Linear(7, 3) on c": (nn.Linear(7, 3), c),
        "nn.Linear(7, 3) with a frozen weight, on x": (frozen, x),
        "Linear(7, 5) -> ReLU -> Linear(5, 3) on x": (
            nn.Sequential(nn.Linear(7, 5), nn.ReLU(), nn.Linear(5, 3)),
            x,
        ),
        "nn.Conv2d(2, 3, 3) on image (1, 2, 5, 5)": (nn.Conv2d(2, 3, 3), image),
        "nn.LayerNorm(7) on x": (nn.LayerNorm(7), x),
        "nn.Embedding(10, 4) on i, an int64 tensor of 6 indices": (
            nn.Embedding(10, 4),
            torch.tensor([3, 3, 0, 9, 1, 5]),
        ),
    }
    cases = [(name, module, [value]) for name, (module, value) in modules.items()]
    # No inputs at all: the parameter reaches fn through the closure.
    cases.append(
        (
            "fn() computing layer.weight.sin() for a Linear(7, 3) layer",
            lambda: weight_only.weight.sin(),
            [],
        )
    )
    observed, watched = measure(t, cases)

    # The graph fn built must still work after the measurement: the hooks stay attached
    # to it, so backward goes through the learner's unpack for every saved tensor.
    for name, fn in watched.items():
        status = "not run: fn was not called"
        if fn.outputs:
            status = attempt(lambda out=fn.outputs[0]: out.sum().backward())
        observed[f"backward after measuring {name}"] = status
    for name, (module, _) in modules.items():
        observed[f"parameter gradients after measuring {name}"] = t.grads(module)
    observed["gradient of layer.weight after measuring fn()"] = weight_only.weight.grad
    observed["gradient of x after measuring"] = x.grad
    observed["gradient of image after measuring"] = image.grad
    return observed


@test(
    "nothing is saved without grad, and an in-place op saves the storage it writes",
    hint=3,
    reveal="summary",
)
def no_grad_and_in_place(t):
    x, w, v = leaves(), leaves((7, 6)), leaves((6, 3))
    c = torch.randn(5, 7)
    mlp = nn.Sequential(nn.Linear(7, 5), nn.Tanh(), nn.Linear(5, 2))
    observed, _ = measure(
        t,
        [
            ("x.sin() inside torch.no_grad()", sin_under_no_grad, [x]),
            ("an MLP on x inside torch.no_grad()", mlp_under_no_grad, [x, mlp]),
            ("x.sin() inside torch.inference_mode()", sin_under_inference_mode, [x]),
            ("c.sin()", lambda a: a.sin(), [c]),
            ("x.detach().sin()", lambda a: a.detach().sin(), [x]),
            ("F.leaky_relu(x @ w) @ v, w (7, 6), v (6, 3)", lambda a: F.leaky_relu(a @ w) @ v, [x]),
            (
                "F.leaky_relu(x @ w, inplace=True) @ v",
                lambda a: F.leaky_relu(a @ w, inplace=True) @ v,
                [x],
            ),
            ("F.elu(x @ w) @ v", lambda a: F.elu(a @ w) @ v, [x]),
            ("F.elu(x @ w, inplace=True) @ v", lambda a: F.elu(a @ w, inplace=True) @ v, [x]),
            ("torch.relu(x @ w) @ v", lambda a: torch.relu(a @ w) @ v, [x]),
            ("torch.relu_(x @ w) @ v", lambda a: torch.relu_(a @ w) @ v, [x]),
            ("(x * 2).exp()", lambda a: (a * 2).exp(), [x]),
            ("(x * 2).exp_()", lambda a: (a * 2).exp_(), [x]),
        ],
    )
    # Called by a caller that turned autograd off: saved_bytes must leave it off.
    with torch.no_grad():
        caller, _ = measure(
            t,
            [("x.sin()", lambda a: a.sin(), [x]), ("an MLP on x", mlp, [x])],
            label="bytes saved, called inside torch.no_grad(), by",
        )
    observed.update(caller)
    return observed
