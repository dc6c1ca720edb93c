"""Tests for the NumPy track of gradient-checkpointing."""

import numpy as np

from graders.testing import test

# The four layers of the statement's example.
EXAMPLE_FNS = [lambda a: a * 2, lambda a: a + 1, lambda a: a * 3, lambda a: a - 1]

# Eight layers that each change the values differently, so running one layer too many or
# too few always shows in the result.
MIXED_FNS = [
    lambda a: a * 2.0,
    np.tanh,
    lambda a: a + 0.5,
    lambda a: a**2,
    lambda a: a[::-1] - 1.0,
    np.sin,
    lambda a: a * -1.5 + 0.25,
    lambda a: a - a.mean(),
]


def add_one_in_place(a):
    a += 1.0
    return a


def triple_in_place(a):
    np.multiply(a, 3.0, out=a)
    return a


def activations(fns, x):
    """Every activation of a plain forward pass (test input, computed the same in both runs)."""
    result = []
    for fn in fns:
        x = fn(x)
        result.append(x)
    return result


def saved_dict(fns, x, indices):
    """A dict shaped like the one checkpoint_forward returns, built without the learner."""
    acts = activations(fns, x)
    saved = {-1: x.copy()}
    for i in indices:
        saved[i] = acts[i].copy()
    return saved


def recompute_each(t, fns, x, indices, layer_indices):
    layers = t.counting_layers(fns)
    saved = saved_dict(fns, x, indices)
    observed = {}
    for k in layer_indices:
        with t.recording(f"recompute of layer {k}") as calls:
            value = t.call("checkpoint_recompute", layers, saved, list(indices), k)
        observed[f"activation {k}"] = value
        observed[f"calls when recomputing layer {k}"] = calls
    return observed


@test("forward keeps the input and the outputs of layers 1 and 3", example=True, hint=1)
def example_forward(t):
    layers = t.counting_layers(EXAMPLE_FNS)
    output, saved = t.call("checkpoint_forward", layers, np.array([1.0]), [1, 3])
    return {"output": output, "saved": saved}


@test("recompute of layer 2 starts from checkpoint 1", example=True, hint=2)
def example_recompute(t):
    layers = t.counting_layers(EXAMPLE_FNS)
    saved = {-1: np.array([1.0]), 1: np.array([3.0]), 3: np.array([8.0])}
    with t.recording("recompute") as calls:
        value = t.call("checkpoint_recompute", layers, saved, [1, 3], 2)
    return {"activation 2": value, "calls during recompute": calls}


@test("saved activations are copies (layers that work in place)", hint=1)
def copies(t):
    layers = t.counting_layers(
        [add_one_in_place, lambda a: a * 2.0, add_one_in_place, triple_in_place, add_one_in_place]
    )
    output, saved = t.call("checkpoint_forward", layers, np.array([1.0, -2.0, 0.5]), [0, 2, 4])
    output_before = np.copy(output)
    output += 100.0  # the caller changes the returned output in place
    return {"output": output_before, "saved after the output was changed in place": saved}


@test("saved holds exactly the input and the checkpoint outputs", hint=1)
def exact_keys(t):
    layers = t.counting_layers(MIXED_FNS[:7])
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    with t.recording("forward") as calls:
        output, saved = t.call("checkpoint_forward", layers, x, [2, 5])
    return {
        "saved keys": t.keys(saved),
        "saved": saved,
        "output": output,
        "calls during forward": calls,
    }


@test("empty and unsorted checkpoint lists", hint=2)
def empty_and_unsorted(t):
    layers = t.counting_layers(MIXED_FNS[:6])
    x = np.array([0.3, -0.7, 1.1])
    _, saved_none = t.call("checkpoint_forward", layers, x, [])
    _, saved_unsorted = t.call("checkpoint_forward", layers, x, [4, 1])
    observed = {
        "saved keys with an empty list": t.keys(saved_none),
        "saved with an empty list": saved_none,
        "saved keys with the list [4, 1]": t.keys(saved_unsorted),
        "saved with the list [4, 1]": saved_unsorted,
    }
    for indices, k in [([], 3), ([4, 1], 3), ([4, 1], 5)]:
        saved = saved_dict(MIXED_FNS[:6], x, indices)
        with t.recording("recompute") as calls:
            value = t.call("checkpoint_recompute", layers, saved, indices, k)
        observed[f"activation {k} with the list {indices}"] = value
        observed[f"calls when recomputing layer {k} with the list {indices}"] = calls
    return observed


@test("recompute runs only the layers after the nearest checkpoint", hint=2)
def nearest_checkpoint(t):
    x = np.array([0.2, -0.4, 0.9, 1.3])
    return recompute_each(t, MIXED_FNS, x, [1, 4, 6], [0, 2, 3, 5, 7])


@test("recompute of a checkpointed layer starts from the checkpoint below it", hint=2)
def checkpointed_layer(t):
    x = np.array([0.2, -0.4, 0.9, 1.3])
    return recompute_each(t, MIXED_FNS, x, [1, 4, 6], [1, 4, 6])


@test("recompute rebuilds every activation of the network", hint=3)
def every_activation(t):
    x = np.linspace(-2.0, 2.0, 6).reshape(2, 3)
    return recompute_each(t, MIXED_FNS, x, [2, 5], range(len(MIXED_FNS)))
