"""Tests for the PyTorch track of gradient-checkpointing."""

import torch
from torch import nn

from graders.testing import test

# The four layers of the statement's example.
EXAMPLE_FNS = [lambda a: a * 2, lambda a: a + 1, lambda a: a * 3, lambda a: a - 1]


def add_one_in_place(a):
    return a.add_(1.0)


def triple_in_place(a):
    return a.mul_(3.0)


def linear_stack(t, count, width=3):
    """``count`` counting layers: nn.Linear, every other one followed by a tanh.

    The weights come from the seeded generator, so they are the same in both runs."""
    modules = nn.ModuleList()
    for i in range(count):
        linear = nn.Linear(width, width)
        modules.append(nn.Sequential(linear, nn.Tanh()) if i % 2 else linear)
    return t.counting_modules(modules)


def saved_dict(layers, x, indices, requires_grad=False):
    """A dict shaped like the one checkpoint_forward returns, built without the learner.

    With ``requires_grad`` every saved tensor is a leaf that requires grad."""
    saved = {-1: x}
    with torch.no_grad():
        h = x
        for i, layer in enumerate(layers):
            h = layer(h)
            if i in indices:
                saved[i] = h
    return {k: v.detach().clone().requires_grad_(requires_grad) for k, v in saved.items()}


def backward_if_possible(value):
    if isinstance(value, torch.Tensor) and value.requires_grad:
        value.sum().backward()


@test("forward keeps the input and the outputs of layers 1 and 3", example=True, hint=1)
def example_forward(t):
    layers = t.counting_layers(EXAMPLE_FNS)
    output, saved = t.call("checkpoint_forward", layers, torch.tensor([1.0]), [1, 3])
    return {"output": output, "saved": saved}


@test("recompute of layer 2 starts from checkpoint 1", example=True, hint=2)
def example_recompute(t):
    layers = t.counting_layers(EXAMPLE_FNS)
    saved = {-1: torch.tensor([1.0]), 1: torch.tensor([3.0]), 3: torch.tensor([8.0])}
    with t.recording("recompute") as calls:
        value = t.call("checkpoint_recompute", layers, saved, [1, 3], 2)
    return {"activation 2": value, "calls during recompute": calls}


@test("forward records no graph and saves exactly the input and the checkpoints", hint=1)
def forward_without_graph(t):
    layers = linear_stack(t, 5)
    x = torch.randn(2, 3, requires_grad=True)
    with t.recording("forward") as calls:
        output, saved = t.call("checkpoint_forward", layers, x, [1, 3])
    return {
        "output": output,
        "saved keys": t.keys(saved),
        "saved": saved,
        "calls during forward": calls,
    }


@test("saved tensors are clones (layers that work in place)", hint=1)
def clones(t):
    layers = t.counting_layers(
        [add_one_in_place, lambda a: a * 2.0, add_one_in_place, triple_in_place, add_one_in_place]
    )
    x = torch.tensor([1.0, -2.0, 0.5])
    output, saved = t.call("checkpoint_forward", layers, x, [0, 2, 4])
    output_before = t.values(output)
    output.add_(100.0)  # the caller changes the returned output in place
    return {"output": output_before, "saved after the output was changed in place": saved}


@test("empty and unsorted checkpoint lists", hint=2)
def empty_and_unsorted(t):
    layers = linear_stack(t, 6)
    x = torch.randn(2, 3)
    _, saved_none = t.call("checkpoint_forward", layers, x, [])
    _, saved_unsorted = t.call("checkpoint_forward", layers, x, [4, 1])
    observed = {
        "saved keys with an empty list": t.keys(saved_none),
        "saved with an empty list": saved_none,
        "saved keys with the list [4, 1]": t.keys(saved_unsorted),
        "saved with the list [4, 1]": saved_unsorted,
    }
    for indices, k in [([], 3), ([4, 1], 3), ([4, 1], 5)]:
        saved = saved_dict(layers, x, indices)
        with t.recording("recompute") as calls:
            value = t.call("checkpoint_recompute", layers, saved, indices, k)
        observed[f"activation {k} with the list {indices}"] = t.values(value)
        observed[f"calls when recomputing layer {k} with the list {indices}"] = calls
    return observed


@test("recompute runs only the layers after the nearest checkpoint strictly below", hint=2)
def nearest_checkpoint(t):
    layers = linear_stack(t, 8)
    x = torch.randn(2, 3)
    indices = [1, 4, 6]
    saved = saved_dict(layers, x, indices)
    observed = {}
    for k in range(len(layers)):  # includes the checkpointed layers 1, 4 and 6
        with t.recording(f"recompute of layer {k}") as calls:
            value = t.call("checkpoint_recompute", layers, saved, indices, k)
        observed[f"activation {k}"] = t.values(value)
        observed[f"calls when recomputing layer {k}"] = calls
    return observed


@test("recomputed activation is attached to the graph of its checkpoint and layers", hint=3)
def attached_to_graph(t):
    layers = linear_stack(t, 6)
    x = torch.randn(2, 3)
    indices = [1, 3]
    saved = saved_dict(layers, x, indices, requires_grad=True)
    with t.recording("recompute") as calls:
        value = t.call("checkpoint_recompute", layers, saved, indices, 5)
    backward_if_possible(value)
    return {
        "recomputed activation 5": value,
        "calls during recompute": calls,
        "gradients of saved activations": {k: v.grad for k, v in saved.items()},
        "gradients of layer parameters": t.grads(layers),
    }


@test("recompute records a graph even when called inside torch.no_grad()", hint=3)
def inside_no_grad(t):
    layers = linear_stack(t, 5)
    x = torch.randn(4, 3)
    indices = [1]
    saved = saved_dict(layers, x, indices)
    with torch.no_grad(), t.recording("recompute") as calls:
        value = t.call("checkpoint_recompute", layers, saved, indices, 3)
    backward_if_possible(value)
    return {
        "recomputed activation 3": value,
        "calls during recompute": calls,
        "gradients of layer parameters": t.grads(layers),
    }
