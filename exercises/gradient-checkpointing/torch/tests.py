"""Tests for the PyTorch track of gradient-checkpointing.

The hidden tests sweep fixed sets of checkpoint lists: empty, ``[0]``, the last layer, every
layer, unsorted lists, lists with repeats, and a one-layer network, recomputing every
``layer_idx`` of each. Each test is a table of cases (``t.cases``), labelled by what the
case exercises: a failure names its first failing case and that case's call. Forward rules
(copies, no graph) point at hint 1, the choice of the starting checkpoint at hint 2, the
autograd rules of the recompute at hint 3.
"""

import torch
from torch import nn

from graders.sandbox.checkpointing import counting_layers, counting_modules, recording
from graders.sandbox.testing import Case, example, from_code, test

# The four layers of the statement's example. Each list of layers is written as code, which
# a failing case shows the learner (from_code).
EXAMPLE_FNS = from_code(
    "[lambda a: a * 2, lambda a: a + 1, lambda a: a * 3, lambda a: a - 1]", globals()
)

# Parameter-free layers that keep their input's dtype (for float64 inputs).
PLAIN_FNS = from_code(
    "[torch.tanh, lambda a: a * 2.0 + 1.0, torch.sin, lambda a: a - a.mean()]", globals()
)

# Layers that change their input in place and return it.
IN_PLACE_FNS = from_code(
    "[lambda a: a.add_(1.0), lambda a: a * 2.0, lambda a: a.add_(1.0), lambda a: a.mul_(3.0), "
    "lambda a: a.add_(1.0)]",
    globals(),
)


def linear_stack(count, width=3):
    """``count`` counting layers: nn.Linear, every other one followed by a tanh.

    The weights come from the seeded generator, so they are the same in both runs."""
    modules = nn.ModuleList()
    for i in range(count):
        linear = nn.Linear(width, width)
        modules.append(nn.Sequential(linear, nn.Tanh()) if i % 2 else linear)
    return counting_modules(modules)


def saved_dict(layers, x, indices, requires_grad=False):
    """A dict shaped like the one checkpoint_forward returns, built without the learner.

    Its entries come in the order of ``indices`` (after ``-1``): the statement leaves the
    order open. With ``requires_grad`` every saved tensor is a leaf that requires grad."""
    saved = {-1: x}
    with torch.no_grad():
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            saved.update({i: h for c in indices if c == i})
    saved = {c: saved[c] for c in [-1, *indices]}
    return {k: v.detach().clone().requires_grad_(requires_grad) for k, v in saved.items()}


def backward_if_possible(value):
    if isinstance(value, torch.Tensor) and value.requires_grad:
        value.sum().backward()


def forward(t, layers, x, indices):
    """One case of checkpoint_forward: which layers ran, what was saved, the output, and
    whether the saved tensors are inference tensors (torch.inference_mode), which a later
    recompute cannot use."""
    with recording(t, "forward") as calls:
        output, saved = t.call("checkpoint_forward", layers, x, list(indices))
    observed = {"calls during forward": calls, "saved": saved, "output": output}
    for key in dict.fromkeys([-1, *indices]):
        tensor = saved.get(key) if isinstance(saved, dict) else None
        inference = tensor.is_inference() if isinstance(tensor, torch.Tensor) else None
        observed[f"saved[{key}] is an inference tensor"] = inference
    return observed


def forward_then_change(t, x, indices, change):
    """checkpoint_forward on layers that work in place, then ``change`` applied to the
    returned output in place, as a caller may: ``saved`` must not follow."""
    layers = counting_layers(IN_PLACE_FNS)
    output, saved = t.call("checkpoint_forward", layers, x, indices)
    output_before = t.values(output)
    change(output)
    return {"output": output_before, "saved after the output was changed in place": saved}


def recompute_cases(t, x, rows):
    """A case per row (description, layers, checkpoint list, layers to rebuild) and
    layer: recompute it from the checkpoints of a plain forward pass.

    Values only (``t.values``): the autograd flags are the business of other tests."""

    built = {}  # per row: its saved dict, built once (t.call clones the tensors)

    def recompute(layers, indices, k):
        key = (id(layers), tuple(indices))
        if key not in built:
            built[key] = saved_dict(layers, x, indices)
        saved = built[key]
        with recording(t, f"recompute of layer {k}") as calls:
            value = t.call("checkpoint_recompute", layers, saved, list(indices), k)
        return {f"calls when recomputing layer {k}": calls, f"activation {k}": t.values(value)}

    return t.cases(
        [
            Case(f"{about}, layer {k}", layers=layers, indices=c, k=k)
            for about, layers, c, ks in rows
            for k in ks
        ],
        recompute,
    )


def recompute_with_grads(t, layers, x, indices, k, requires_grad, no_grad=False):
    """Recompute layer k, backpropagate from the result when it needs a gradient, and
    observe the result's autograd flags and which saved tensors and parameters got a .grad.

    ``t.call`` clones the saved tensors it passes; a clone of a tensor that requires grad
    passes gradients back to it, so the .grad observed is that of the tensors built here.
    With ``no_grad`` the call is made inside ``torch.no_grad()``."""
    saved = saved_dict(layers, x, indices, requires_grad=requires_grad)
    with torch.set_grad_enabled(not no_grad), recording(t, f"recompute of layer {k}") as calls:
        value = t.call("checkpoint_recompute", layers, saved, list(indices), k)
    backward_if_possible(value)
    observed = {f"calls when recomputing layer {k}": calls, f"activation {k}": value}
    for key, tensor in saved.items():
        observed[f"saved[{key}].grad after recomputing layer {k}"] = tensor.grad
    if isinstance(layers, nn.Module):
        observed[f"grad of the parameters after recomputing layer {k}"] = t.grads(layers)
    return observed


@example("forward keeps the input and the outputs of layers 1 and 3", hint=1)
def example_forward(t):
    layers = counting_layers(EXAMPLE_FNS)
    output, saved = t.call("checkpoint_forward", layers, torch.tensor([1.0]), [1, 3])
    return {"output": output, "saved": saved}


@example("recompute of layer 2 starts from checkpoint 1", hint=2)
def example_recompute(t):
    layers = counting_layers(EXAMPLE_FNS)
    saved = {-1: torch.tensor([1.0]), 1: torch.tensor([3.0]), 3: torch.tensor([8.0])}
    with recording(t, "recompute") as calls:
        value = t.call("checkpoint_recompute", layers, saved, [1, 3], 2)
    return {"activation 2": value, "calls during recompute": calls}


@test(
    "forward records no graph and saves exactly the input and the checkpoints",
    hint=1,
    exact_dtype=True,
    reveal="summary",
)
def forward_without_graph(t):
    # One stack for the five-layer cases: a forward pass leaves its layers as they were
    # (no gradient, no state), and building nn.Linear modules is most of a case's time.
    five = linear_stack(5)
    x = torch.randn(2, 3, requires_grad=True)
    x64 = torch.linspace(-1.0, 1.0, 6, dtype=torch.float64).reshape(2, 3).requires_grad_()
    return t.cases(
        [
            Case("two checkpoints", layers=five, x=x, indices=[1, 3]),
            Case("no checkpoint", layers=five, x=x, indices=[]),
            Case("only layer 0", layers=five, x=x, indices=[0]),
            Case("only the last layer", layers=five, x=x, indices=[4]),
            Case("an unsorted list", layers=five, x=x, indices=[3, 1]),
            Case("a repeated index", layers=five, x=x, indices=[2, 0, 0]),
            Case("every layer, last first", layers=five, x=x, indices=[4, 3, 2, 1, 0]),
            Case(
                "a one-layer network, layer 0 twice",
                layers=linear_stack(1),
                x=x,
                indices=[0, 0],
            ),
            Case(
                "parameter-free layers, a float64 input",
                layers=counting_layers(PLAIN_FNS),
                x=x64,
                indices=[2, 1],
            ),
        ],
        lambda layers, x, indices: forward(t, layers, x, indices),
    )


@test(
    "saved tensors are clones (layers that work in place)",
    hint=1,
    exact_dtype=True,
    reveal="summary",
)
def clones(t):
    x64 = torch.tensor([[0.25, -1.0], [2.0, 0.5]], dtype=torch.float64)
    return t.cases(
        [
            Case(
                "in-place layers, then the caller adds 100 to the output",
                x=torch.tensor([1.0, -2.0, 0.5]),
                indices=[0, 2, 4],
                change=lambda output: output.add_(100.0),
            ),
            # float64, an unsorted list with a repeat, and the last layer not checkpointed.
            Case(
                "in-place layers on float64, then the caller multiplies the output by -7",
                x=x64,
                indices=[3, 1, 3],
                change=lambda output: output.mul_(-7.0),
            ),
        ],
        lambda x, indices, change: forward_then_change(t, x, indices, change),
    )


@test(
    "recompute replays from the nearest checkpoint strictly below (or the input) up to "
    "layer_idx, each layer once",
    hint=2,
    reveal="summary",
)
def nearest_checkpoint(t):
    layers = linear_stack(8)
    x = torch.randn(2, 3)
    every = range(len(layers))  # includes the checkpointed layers
    one = linear_stack(1)
    return recompute_cases(
        t,
        x,
        [
            ("three checkpoints", layers, [1, 4, 6], every),
            ("only layer 0", layers, [0], every),
            ("layers 0 and 5", layers, [0, 5], every),
            ("only the last layer", layers, [7], every),
            ("a one-layer network, no checkpoint", one, [], [0]),
            ("a one-layer network, layer 0 saved", one, [0], [0]),
        ],
    )


@test(
    "recompute ignores the order of the checkpoint list and its repeats", hint=2, reveal="summary"
)
def unsorted_and_repeated(t):
    layers = linear_stack(6)
    x = torch.randn(2, 3)
    every = range(len(layers))
    return recompute_cases(
        t,
        x,
        [
            ("no checkpoint", layers, [], every),
            ("an unsorted list", layers, [4, 1], every),
            ("an unsorted list of three", layers, [5, 0, 3], every),
            ("a repeated index", layers, [2, 4, 2], every),
        ],
    )


@test(
    "recomputed activation is attached to the graph of its checkpoint and layers",
    hint=3,
    reveal="summary",
)
def attached_to_graph(t):
    x = torch.randn(2, 3)
    one = torch.tensor([1.0, -0.5])
    return t.cases(
        [
            # Linear layers; every saved tensor requires grad: from checkpoint 3, from the
            # input (the caller's x gets the gradient), from checkpoint 0.
            Case(
                "six linear layers, from checkpoint 3",
                layers=linear_stack(6),
                x=x,
                indices=[1, 3],
                k=5,
                requires_grad=True,
            ),
            Case(
                "four linear layers, from the input",
                layers=linear_stack(4),
                x=x,
                indices=[],
                k=2,
                requires_grad=True,
            ),
            Case(
                "four linear layers, from checkpoint 0",
                layers=linear_stack(4),
                x=x,
                indices=[0, 2],
                k=1,
                requires_grad=True,
            ),
            # No parameters: attached to the starting tensor when it requires grad, to
            # nothing (no grad_fn, requires_grad=False) when it does not.
            Case(
                "no parameters, a start that requires grad",
                layers=counting_layers(EXAMPLE_FNS),
                x=one,
                indices=[0],
                k=3,
                requires_grad=True,
            ),
            Case(
                "no parameters, a start that does not require grad",
                layers=counting_layers(EXAMPLE_FNS),
                x=one,
                indices=[1],
                k=2,
                requires_grad=False,
            ),
        ],
        lambda layers, x, indices, k, requires_grad: recompute_with_grads(
            t, layers, x, indices, k, requires_grad
        ),
    )


@test("recompute records a graph even when called inside torch.no_grad()", hint=3, reveal="summary")
def inside_no_grad(t):
    # t.call clones the saved tensors where it is called, here under torch.no_grad(), so
    # the clones never require grad: what is left to observe is the layers' own graph.
    return t.cases(
        [
            Case(
                "five layers, from checkpoint 1",
                layers=linear_stack(5),
                x=torch.randn(4, 3),
                indices=[1],
                k=3,
            ),
            Case(
                "three layers, from the input",
                layers=linear_stack(3),
                x=torch.randn(4, 3),
                indices=[],
                k=1,
            ),
            Case(
                "four layers, from checkpoint 0",
                layers=linear_stack(4),
                x=torch.randn(4, 3),
                indices=[0, 3],
                k=2,
            ),
        ],
        lambda layers, x, indices, k: recompute_with_grads(
            t, layers, x, indices, k, False, no_grad=True
        ),
    )
