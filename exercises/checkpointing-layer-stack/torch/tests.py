"""Tests for the PyTorch track of checkpointing-layer-stack.

Every comparison is exact (rtol=0, atol=0): checkpointing must not change a single bit.

Each test runs the learner's function once and then a backward pass (the test of short
segments does so in each case of a table of cases, ``t.cases``), and observes which
layers ran in each phase, the output, the gradients and the bytes of activations autograd
kept outside checkpointed regions. A backward pass that raises is an observation too
("backward pass: raised ..."), so that the record of the layers that ran before the error
is still shown.
"""

import torch
from torch import nn

from graders.sandbox.checkpointing import counting_modules, kept_for_backward, recording
from graders.sandbox.testing import Case, example, test


def linear_stack(count, width=4):
    """``count`` counting nn.Linear layers (seeded, so the same weights in both runs)."""
    return counting_modules(nn.ModuleList(nn.Linear(width, width) for _ in range(count)))


def mixed_stack(count, width=5):
    """``count`` counting layers alternating nn.Linear and nn.Tanh, starting with a Linear."""
    modules = [nn.Linear(width, width) if i % 2 == 0 else nn.Tanh() for i in range(count)]
    return counting_modules(nn.ModuleList(modules))


def attempt(action):
    """``"finished"`` when ``action()`` returns, otherwise what it raised (first line)."""
    try:
        action()
    except Exception as error:  # a wrong graph raises during backward; that is the finding
        lines = str(error).strip().splitlines()
        return f"raised {type(error).__name__}: {lines[0] if lines else ''}".strip()
    return "finished"


def needs_grad(output):
    return isinstance(output, torch.Tensor) and output.requires_grad


def run_forward(t, layers, x, segment_size):
    """Call the learner's function, recording the forward calls and the bytes kept."""
    with recording(t, "forward") as calls, kept_for_backward(t, layers) as kept:
        output = t.call("forward_with_checkpointing", layers, x, segment_size)
    observed = {
        "output": output,
        "calls during forward": calls,
        # A second, independent view of the segments: the activations autograd holds for
        # backward outside checkpointed regions (only each segment's input, when every
        # layer runs inside a checkpoint).
        "bytes autograd keeps for backward outside checkpointed segments": kept,
    }
    return output, observed


def forward_and_backward(t, layers, x, segment_size):
    """The forward call, then ``(output**2).sum().backward()``, both phases recorded."""
    output, observed = run_forward(t, layers, x, segment_size)
    status = "not run: the output does not require grad"
    with recording(t, "backward") as calls:
        if needs_grad(output):
            status = attempt(lambda: (output**2).sum().backward())
    observed["calls during backward"] = calls
    observed["backward pass"] = status
    observed["gradients of layer parameters"] = t.grads(layers)
    if x.requires_grad:
        observed["gradient of x"] = x.grad
    return observed


@example("six linear layers in segments of two", hint=1, rtol=0, atol=0)
def example_six_layers(t):
    layers = linear_stack(6)
    x = torch.randn(2, 4, requires_grad=True)
    with recording(t, "forward") as forward_calls:
        output = t.call("forward_with_checkpointing", layers, x, segment_size=2)
    with recording(t, "backward") as backward_calls:
        if needs_grad(output):
            (output**2).sum().backward()
    return {
        "calls during forward": forward_calls,
        "calls during backward": backward_calls,
        "output shape": list(output.shape),
        "output": output,
    }


@example(
    "five layers in segments of two: the last segment is shorter",
    hint=1,
    rtol=0,
    atol=0,
)
def example_short_last_segment(t):
    layers = mixed_stack(5)
    x = torch.randn(2, 5, requires_grad=True)
    return forward_and_backward(t, layers, x, 2)


@test(
    "each segment is checkpointed: only its input is kept, backward re-runs it (last "
    "segment first) and gradients reach x and every layer",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def segments_in_backward(t):
    layers = linear_stack(6)
    x = torch.randn(3, 4, requires_grad=True)
    return forward_and_backward(t, layers, x, 2)


@test(
    "a shorter last segment, or one segment for the whole stack, runs and is checkpointed",
    hint=1,
    rtol=0,
    atol=0,
    reveal="summary",
)
def short_segments(t):
    return t.cases(
        [
            Case(
                "7 layers in segments of 3",
                layers=mixed_stack(7),
                x=torch.randn(2, 5, requires_grad=True),
                segment_size=3,
            ),
            Case(
                "4 layers, one segment of 10 for the whole stack",
                layers=linear_stack(4),
                x=torch.randn(2, 4, requires_grad=True),
                segment_size=10,
            ),
        ],
        lambda layers, x, segment_size: forward_and_backward(t, layers, x, segment_size),
    )


@test("segment_size 1 checkpoints every layer on its own", hint=1, rtol=0, atol=0, reveal="summary")
def one_layer_segments(t):
    layers = mixed_stack(5)
    x = torch.randn(2, 5, requires_grad=True)
    return forward_and_backward(t, layers, x, 1)


@test(
    "parameters get gradients when x does not require grad",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def input_without_grad(t):
    layers = linear_stack(5)
    x = torch.randn(3, 4)
    return forward_and_backward(t, layers, x, 2)


@test(
    "torch.autograd.grad reaches x and every parameter through every segment",
    hint=2,
    rtol=0,
    atol=0,
    reveal="summary",
)
def autograd_grad(t):
    layers = mixed_stack(9, width=3)
    x = torch.randn(4, 3, requires_grad=True)
    output, observed = run_forward(t, layers, x, 3)
    names = ["x", *(name for name, _ in layers.named_parameters())]
    inputs = [x, *layers.parameters()]
    found = {}
    status = "not run: the output does not require grad"

    def gradients():
        grads = torch.autograd.grad((output**2).sum(), inputs, allow_unused=True)
        found.update(zip(names, grads, strict=True))

    with recording(t, "torch.autograd.grad") as calls:
        if needs_grad(output):
            status = attempt(gradients)
    observed["calls during torch.autograd.grad"] = calls
    observed["torch.autograd.grad(loss, [x, *parameters])"] = status
    observed["gradients from torch.autograd.grad"] = found or None
    return observed


@test(
    "backward rebuilds each segment from its own layers, with the same random numbers",
    hint=3,
    rtol=0,
    atol=0,
    reveal="summary",
)
def rebuilds_same_segment(t):
    width = 6
    kinds = [nn.Linear, nn.Dropout, nn.Linear, nn.Tanh, nn.Linear, nn.Dropout, nn.Linear, nn.Tanh]
    modules = [nn.Linear(width, width) if k is nn.Linear else k() for k in kinds]
    layers = counting_modules(nn.ModuleList(modules))  # training mode: dropout is random
    x = torch.randn(5, width, requires_grad=True)
    return forward_and_backward(t, layers, x, 3)
