"""Tests for the PyTorch track of checkpointing-layer-stack.

Every comparison is exact (rtol=0, atol=0): checkpointing must not change a single bit.
"""

import torch
from torch import nn

from graders.testing import test


def linear_stack(t, count, width=4):
    """``count`` counting nn.Linear layers (seeded, so the same weights in both runs)."""
    return t.counting_modules(nn.ModuleList(nn.Linear(width, width) for _ in range(count)))


def mixed_stack(t, count, width=5):
    """``count`` counting layers alternating nn.Linear and nn.Tanh, starting with a Linear."""
    modules = [nn.Linear(width, width) if i % 2 == 0 else nn.Tanh() for i in range(count)]
    return t.counting_modules(nn.ModuleList(modules))


def forward_and_backward(t, layers, x, segment_size):
    """Call the learner's function, then backpropagate a loss, recording both phases."""
    with t.recording("forward") as forward_calls, t.kept_for_backward(layers) as kept:
        output = t.call("forward_with_checkpointing", layers, x, segment_size)
    with t.recording("backward") as backward_calls:
        if isinstance(output, torch.Tensor) and output.requires_grad:
            (output**2).sum().backward()
    return {
        "output": output,
        "calls during forward": forward_calls,
        "calls during backward": backward_calls,
        "gradients of layer parameters": t.grads(layers),
        # A second, independent view of the segments: the activations autograd holds for
        # backward outside checkpointed regions (only each segment's input, when every
        # layer runs inside a checkpoint).
        "bytes autograd keeps for backward outside checkpointed segments": kept,
    }


@test("six linear layers in segments of two", example=True, hint=1, rtol=0, atol=0)
def example_six_layers(t):
    layers = nn.ModuleList([nn.Linear(4, 4) for _ in range(6)])
    x = torch.randn(2, 4, requires_grad=True)
    output = t.call("forward_with_checkpointing", layers, x, segment_size=2)
    return {"output shape": list(output.shape), "output": output}


@test("backward re-runs each segment, last segment first", hint=1, rtol=0, atol=0)
def segments_in_backward(t):
    layers = linear_stack(t, 6)
    x = torch.randn(3, 4, requires_grad=True)
    observed = forward_and_backward(t, layers, x, 2)
    observed["gradient of x"] = x.grad
    return observed


@test("a shorter last segment still runs and is checkpointed", hint=2, rtol=0, atol=0)
def shorter_last_segment(t):
    layers = mixed_stack(t, 7)
    x = torch.randn(2, 5, requires_grad=True)
    observed = forward_and_backward(t, layers, x, 3)
    observed["gradient of x"] = x.grad
    return observed


@test("parameters get gradients when x does not require grad", hint=2, rtol=0, atol=0)
def input_without_grad(t):
    layers = linear_stack(t, 5)
    x = torch.randn(3, 4)
    return forward_and_backward(t, layers, x, 2)


@test("gradients flow through every segment boundary", hint=2, rtol=0, atol=0)
def through_boundaries(t):
    layers = mixed_stack(t, 9, width=3)
    x = torch.randn(4, 3, requires_grad=True)
    observed = forward_and_backward(t, layers, x, 3)
    observed["gradient of x"] = x.grad
    return observed


@test("segment_size larger than the stack gives a single segment", hint=2, rtol=0, atol=0)
def one_big_segment(t):
    layers = linear_stack(t, 4)
    x = torch.randn(2, 4, requires_grad=True)
    observed = forward_and_backward(t, layers, x, 10)
    observed["gradient of x"] = x.grad
    return observed


@test("segment_size 1 checkpoints every layer on its own", hint=1, rtol=0, atol=0)
def one_layer_segments(t):
    layers = mixed_stack(t, 5)
    x = torch.randn(2, 5, requires_grad=True)
    observed = forward_and_backward(t, layers, x, 1)
    observed["gradient of x"] = x.grad
    return observed
