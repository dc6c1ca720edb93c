"""Tests for the PyTorch track of cross-entropy.

Each case makes one call on a leaf tensor of logits that requires grad. Each test
observes only what its name is about: the loss test the loss's value alone (as a number,
whatever form it came in); the graph test what the loss is (a 0-d tensor with a grad_fn
or not), whether backward ran and ``logits.grad``, not the loss's value; the value tests
the loss's value, whether backward ran and ``logits.grad``; the all-ignored test also the
loss's autograd flags; the float32 test the loss's dtype alone; the inputs test only
which arguments the call changed in place; the last test only whether PyTorch's nll_loss
kernel ran during one small call (a ``TorchDispatchMode`` sees every aten op the call runs;
F.cross_entropy, nn.CrossEntropyLoss, F.nll_loss and nn.NLLLoss all end in
``aten.nll_loss_forward`` or ``aten.nll_loss2d_forward``). The plain rules come first, on
float64 logits with no ignored row; ignore_index, the all-ignored batch, float32, the
small shapes, the inputs left alone and the nll_loss rule follow. The float32 logits whose
values are compared stay within 100 in absolute value, as the statement says: near 1000,
float32 rounding of ``m + log(sum(exp(z - m)))`` alone exceeds the float32 tolerance.
"""

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from graders.sandbox.testing import Case, MissingEntryPoint, example, test

TOLERANCES = {"float64": (1e-7, 1e-10), "float32": (1e-4, 1e-5)}


def backward(loss):
    """Run loss.backward() and say whether it ran (or what it raised)."""
    try:
        loss.backward()
    except Exception as error:  # the learner's loss: anything may go wrong
        return f"raised {type(error).__name__}: {str(error)[:160]}"
    return "ran"


def value_of(loss):
    """The loss's value as a 0-d array, whatever form it came in: a tensor of one element
    (its dtype kept, float16 and the like as float64), a Python number (as float64);
    anything else as it is, so that the comparison says what it is. The tolerance is that
    of the reference's loss's dtype."""
    if isinstance(loss, torch.Tensor) and loss.numel() == 1:
        value = loss.detach().reshape(()).cpu()
        return (value if value.dtype in (torch.float32, torch.float64) else value.double()).numpy()
    if type(loss) in (float, int):
        return np.asarray(loss, dtype=np.float64)
    return loss.detach() if isinstance(loss, torch.Tensor) else loss


def loss_form(loss):
    """What the loss is, in words: a tensor of how many dimensions, on the graph or not."""
    if not isinstance(loss, torch.Tensor):
        return f"a {type(loss).__name__}, not a tensor"
    graph = "with a grad_fn" if loss.grad_fn is not None else "with no grad_fn (off the graph)"
    return f"a {loss.dim()}-d tensor {graph}"


def observe(t, logits, targets, what="values", **kwargs):
    """One call on a leaf copy of ``logits`` that requires grad, then (unless ``what`` is
    "loss") a backward pass from the loss. ``what`` says what to observe: "loss" its
    value; "graph" what it is and the gradient; "values" its value and the gradient;
    "values on the graph" also whether it has a grad_fn; "everything" the loss tensor
    itself (shape, dtype kind, values, autograd flags) and the gradient."""
    leaf = logits.detach().clone().requires_grad_(True)
    loss = t.call("cross_entropy", leaf, targets, **kwargs)
    if what == "loss":
        return {"loss": value_of(loss)}
    if what == "graph":
        first = {"loss is": loss_form(loss)}
    elif what == "values":
        first = {"loss": value_of(loss)}
    elif what == "values on the graph":
        on_graph = isinstance(loss, torch.Tensor) and loss.grad_fn is not None
        first = {"loss": value_of(loss), "the loss has a grad_fn": on_graph}
    else:
        first = {"loss": loss}
    return {**first, "loss.backward()": backward(loss), "logits.grad": leaf.grad}


def loss_dtype(t, logits, targets):
    """Only the loss's dtype, as an empty tensor of it (None if no tensor came back)."""
    loss = t.call("cross_entropy", logits.detach().clone().requires_grad_(True), targets)
    dtype = torch.empty(0, dtype=loss.dtype) if isinstance(loss, torch.Tensor) else None
    return {"dtype of the loss": dtype}


def changes(t, logits, targets, **kwargs):
    """Only which arguments the call changed in place, even when it then raised (its
    result is other tests' business)."""
    try:
        t.call("cross_entropy", logits.detach().clone().requires_grad_(True), targets, **kwargs)
    except MissingEntryPoint:
        raise
    except Exception:  # a crash is the other tests' finding: this one only looks at the inputs
        pass
    changed = t.changed_in_place("logits", "targets")
    return {"changed in place": ", ".join(changed) or "nothing"}  # names it: "got 'targets'"


class NllLossWatch(TorchDispatchMode):
    """Notes the name of any aten op with nll_loss in it that runs inside the mode."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if "nll_loss" in name and name not in self.seen:
            self.seen.append(name)
        return func(*args, **(kwargs or {}))


def rounded(rng, shape):
    return torch.from_numpy(np.round(rng.normal(0.0, 2.0, size=shape), 2))


def draw_plain(rng):
    """Float64 logits of a few rows and classes, every target a class."""
    n, c = int(rng.integers(2, 7)), int(rng.integers(3, 5))
    return rounded(rng, (n, c)), torch.from_numpy(rng.integers(0, c, size=n))


WORKED = torch.tensor([[0.0, 0.0], [float(np.log(3.0)), 0.0]], dtype=torch.float64)


@example("the worked example: two rows, both kept", hint=1, tolerances=TOLERANCES)
def worked_example(t):
    return observe(t, WORKED, torch.tensor([0, 1]), what="everything")


@example("the worked example with row 1 ignored", hint=2, tolerances=TOLERANCES)
def worked_example_ignored(t):
    return observe(t, WORKED, torch.tensor([0, -100]), what="everything")


@test(
    "the loss is the mean of -log_softmax at each row's target",
    hint=1,
    reveal="summary",
    tolerances=TOLERANCES,
)
def loss_value(t):
    return t.random_cases(
        4, draw_plain, lambda logits, targets: observe(t, logits, targets, what="loss")
    )


@test(
    "the loss is a 0-d tensor attached to the graph: backward gives F.cross_entropy's gradient",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def gradient_value(t):
    return t.random_cases(
        4, draw_plain, lambda logits, targets: observe(t, logits, targets, what="graph")
    )


@test(
    "large logits (up to 1000) give finite, accurate values: no overflow",
    hint=1,
    reveal="summary",
    tolerances=TOLERANCES,
)
def large_logits(t):
    base = torch.tensor(
        [[3.0, -1.5, 0.5], [-2.0, 4.0, 1.0], [0.0, 0.25, -0.75]], dtype=torch.float64
    )
    shifts = torch.tensor([[1000.0], [-1000.0], [0.0]], dtype=torch.float64)
    targets = torch.tensor([0, 2, 1])
    return t.cases(
        [
            Case("logits near 1000", logits=base + 1000.0),
            Case("logits near -1000", logits=base - 1000.0),
            Case("rows near 1000, -1000 and 0", logits=base + shifts),
            Case("float32 logits near 80 (up to 96)", logits=(base * 4.0 + 80.0).float()),
        ],
        lambda logits: observe(t, logits, targets),
    )


@test(
    "ignored rows (target -100) add nothing: the mean is over the kept rows, their gradient is 0",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def ignored_rows(t):
    logits = rounded(np.random.default_rng(t.seed), (5, 4))
    return t.cases(
        [
            Case("one ignored row", targets=torch.tensor([1, 3, -100, 0, 2])),
            Case("ignored first and last rows", targets=torch.tensor([-100, 2, 2, 1, -100])),
            Case("one kept row", targets=torch.tensor([-100, -100, 3, -100, -100])),
        ],
        lambda targets: observe(t, logits, targets),
    )


@test(
    "ignore_index is honoured whatever its value: -1, a class index, 255",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def other_ignore_index(t):
    logits = rounded(np.random.default_rng(t.seed), (5, 3))
    return t.cases(
        [
            Case("ignore_index=-1", targets=torch.tensor([2, -1, 0, -1, 1]), ignore=-1),
            Case("ignore_index=0, a class", targets=torch.tensor([0, 2, 0, 1, 1]), ignore=0),
            Case("ignore_index=2, the last class", targets=torch.tensor([1, 2, 0, 2, 2]), ignore=2),
            Case("ignore_index=255", targets=torch.tensor([255, 1, 2, 255, 0]), ignore=255),
        ],
        lambda targets, ignore: observe(t, logits, targets, ignore_index=ignore),
    )


@test(
    "when every target is ignored, the loss is 0.0, still on the graph, and the gradient is "
    "all zeros (not NaN)",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def all_ignored(t):
    logits = rounded(np.random.default_rng(t.seed), (3, 4))
    return t.cases(
        [
            Case(
                "three rows, all -100", logits=logits, targets=torch.full((3,), -100), ignore=-100
            ),
            Case(
                "three rows, ignore_index=1", logits=logits, targets=torch.full((3,), 1), ignore=1
            ),
        ],
        lambda logits, targets, ignore: observe(
            t, logits, targets, what="values on the graph", ignore_index=ignore
        ),
    )


@test(
    "float32 logits give a float32 loss",
    hint=3,
    reveal="summary",
    exact_dtype=True,
    tolerances=TOLERANCES,
)
def float32(t):
    logits = rounded(np.random.default_rng(t.seed), (4, 3)).float()
    return t.cases(
        [
            Case("every row kept", targets=torch.tensor([2, 0, 1, 1])),
            Case("one ignored row", targets=torch.tensor([0, -100, 2, 1])),
        ],
        lambda targets: loss_dtype(t, logits, targets),
    )


@test(
    "one row (kept or ignored), two classes, and targets that repeat a class all work",
    hint=1,
    reveal="summary",
    tolerances=TOLERANCES,
)
def small_shapes(t):
    rng = np.random.default_rng(t.seed)
    logits = rounded(rng, (5, 3))
    one_row = rounded(rng, (1, 2))
    return t.cases(
        [
            Case("one row, two classes, target 0", logits=one_row, targets=torch.tensor([0])),
            Case("one row, two classes, target 1", logits=one_row, targets=torch.tensor([1])),
            Case("one row, three classes", logits=logits[:1], targets=torch.tensor([2])),
            Case("one row, ignored", logits=logits[:1], targets=torch.tensor([-100])),
            Case("every row has target 1", logits=logits, targets=torch.tensor([1, 1, 1, 1, 1])),
            Case("targets 2, 2, 0, 0, 2", logits=logits, targets=torch.tensor([2, 2, 0, 0, 2])),
        ],
        lambda logits, targets: observe(t, logits, targets),
    )


@test(
    "logits and targets are left as they were: nothing is changed in place",
    hint=2,
    reveal="summary",
    tolerances=TOLERANCES,
)
def inputs_unchanged(t):
    rng = np.random.default_rng(t.seed)
    logits = torch.from_numpy(np.round(rng.normal(3.0, 2.0, size=(4, 3)), 2))  # no row max is 0
    return t.cases(
        [
            Case("every row kept", logits=logits, targets=torch.tensor([2, 0, 1, 1]), ignore=-100),
            Case(
                "rows 1 and 3 ignored",
                logits=logits,
                targets=torch.tensor([0, -100, 2, -100]),
                ignore=-100,
            ),
            Case(
                "ignore_index=255",
                logits=logits,
                targets=torch.tensor([255, 1, 255, 0]),
                ignore=255,
            ),
            Case(
                "float32 logits, one ignored row",
                logits=logits.float(),
                targets=torch.tensor([1, 2, -100, 0]),
                ignore=-100,
            ),
        ],
        lambda logits, targets, ignore: changes(t, logits, targets, ignore_index=ignore),
    )


@test(
    "the loss is computed by hand: PyTorch's nll_loss kernel does not run",
    hint=3,
    reveal="summary",
    tolerances=TOLERANCES,
)
def no_nll_loss(t):
    logits = rounded(np.random.default_rng(t.seed), (3, 4))
    with NllLossWatch():  # the first use of a dispatch mode may import modules: not here
        torch.zeros(1).add(1)
    watch = NllLossWatch()
    with watch:
        t.call("cross_entropy", logits, torch.tensor([1, -100, 3]))
    return {"PyTorch's nll_loss": f"ran ({', '.join(watch.seen)})" if watch.seen else "not used"}
