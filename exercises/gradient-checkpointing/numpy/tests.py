"""Tests for the NumPy track of gradient-checkpointing.

The hidden tests sweep fixed sets of checkpoint lists: empty, ``[0]``, the last layer, every
layer, unsorted lists, lists with repeats, and one- and two-layer networks, recomputing
every ``layer_idx`` of each. Forward rules point at hint 1, the choice of the starting
checkpoint at hint 2, the bounds of the replay at hint 3.
"""

import numpy as np

from graders.testing import test

# The four layers of the statement's example.
EXAMPLE_FNS = [lambda a: a * 2, lambda a: a + 1, lambda a: a * 3, lambda a: a - 1]

# Eight layers that each change the values differently, so running one layer too many or
# too few always shows in the result. Each returns a new array of its input's dtype.
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
ONE_LAYER = [np.tanh]
TWO_LAYERS = [lambda a: a * 3.0 - 0.5, np.cos]


def add_one_in_place(a):
    a += 1.0
    return a


def triple_in_place(a):
    np.multiply(a, 3.0, out=a)
    return a


IN_PLACE_FNS = [
    add_one_in_place,
    lambda a: a * 2.0,
    add_one_in_place,
    triple_in_place,
    add_one_in_place,
]


def activations(fns, x):
    """Every activation of a plain forward pass (test input, computed the same in both runs)."""
    result = []
    for fn in fns:
        x = fn(x)
        result.append(x)
    return result


def saved_dict(fns, x, indices):
    """A dict shaped like the one checkpoint_forward returns, built without the learner.

    Its entries come in the order of ``indices`` (after ``-1``): the statement leaves the
    order of the entries open."""
    acts = activations(fns, x)
    saved = {-1: x.copy()}
    for i in indices:
        saved[i] = acts[i].copy()
    return saved


def network_name(fns):
    if fns is ONE_LAYER:
        return " in a one-layer network"
    if fns is TWO_LAYERS:
        return " in a two-layer network"
    return ""


def forward_each(t, cases):
    """Run checkpoint_forward on each (fns, x, indices, note) and observe all it gives."""
    observed = {}
    for fns, x, indices, note in cases:
        where = f"with the list {indices}{network_name(fns)}{note}"
        layers = t.counting_layers(fns)
        with t.recording("forward") as calls:
            output, saved = t.call("checkpoint_forward", layers, x, list(indices))
        observed[f"calls during forward {where}"] = calls
        observed[f"saved {where}"] = saved
        observed[f"output {where}"] = output
    return observed


def recompute_each(t, cases):
    """Recompute each (fns, x, indices, layer indices) from a dict built by the test."""
    observed = {}
    for fns, x, indices, layer_indices in cases:
        layers = t.counting_layers(fns)
        saved = saved_dict(fns, x, indices)
        where = f"with the list {indices}{network_name(fns)}"
        for k in layer_indices:
            with t.recording(f"recompute of layer {k}") as calls:
                value = t.call("checkpoint_recompute", layers, saved, list(indices), k)
            observed[f"calls when recomputing layer {k} {where}"] = calls
            observed[f"activation {k} {where}"] = value
    return observed


def not_in(indices, count=len(MIXED_FNS)):
    return [k for k in range(count) if k not in indices]


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


@test("saved activations are copies (layers that work in place)", hint=1, exact_dtype=True)
def copies(t):
    layers = t.counting_layers(IN_PLACE_FNS)
    output, saved = t.call("checkpoint_forward", layers, np.array([1.0, -2.0, 0.5]), [0, 2, 4])
    output_before = np.copy(output)
    output += 100.0  # the caller changes the returned output in place
    observed = {"output": output_before, "saved after the output was changed in place": saved}

    # float32, an unsorted list with a repeat, and the last layer not checkpointed.
    layers = t.counting_layers(IN_PLACE_FNS)
    x = np.array([[0.25, -1.0], [2.0, 0.5]], dtype=np.float32)
    output, saved = t.call("checkpoint_forward", layers, x, [3, 1, 3])
    output_before = np.copy(output)
    output *= -7.0
    observed["output with the list [3, 1, 3]"] = output_before
    observed["saved with the list [3, 1, 3] after the output was changed in place"] = saved
    return observed


@test("saved holds exactly the input and the checkpoint outputs", hint=1, exact_dtype=True)
def exact_keys(t):
    fns = MIXED_FNS[:7]
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    x32 = np.array([0.3, -0.7, 1.1, 0.05], dtype=np.float32)
    return forward_each(
        t,
        [
            (fns, x, [2, 5], ""),
            (fns, x, [], ""),
            (fns, x, [0], ""),
            (fns, x, [6], ""),
            (fns, x, [5, 2], ""),
            (fns, x, [4, 1, 1], ""),
            (fns, x, [6, 5, 4, 3, 2, 1, 0], ""),
            (fns, x32, [3, 0], " (float32 input)"),
            (ONE_LAYER, x, [], ""),
            (ONE_LAYER, x, [0, 0], ""),
        ],
    )


@test("recompute ignores the order of the checkpoint list and its repeats", hint=2)
def unsorted_and_repeated(t):
    x = np.array([0.3, -0.7, 1.1])
    every = range(len(MIXED_FNS))
    return recompute_each(
        t,
        [
            (MIXED_FNS, x, [], every),
            (MIXED_FNS, x, [4, 1], every),
            (MIXED_FNS, x, [6, 0, 3], every),
            (MIXED_FNS, x, [5, 2, 5], every),
        ],
    )


@test("recompute runs only the layers after the nearest checkpoint", hint=2)
def nearest_checkpoint(t):
    x = np.array([0.2, -0.4, 0.9, 1.3])
    cases = [[1, 4, 6], [0], [0, 5], [7], [3]]
    return recompute_each(t, [(MIXED_FNS, x, c, not_in(c)) for c in cases])


@test("recompute of a checkpointed layer starts from the checkpoint below it", hint=2)
def checkpointed_layer(t):
    x = np.array([0.2, -0.4, 0.9, 1.3])
    cases = [[1, 4, 6], [0], [0, 1], [7], list(range(len(MIXED_FNS)))]
    return recompute_each(t, [(MIXED_FNS, x, c, c) for c in cases])


@test("recompute rebuilds every activation of the network", hint=3)
def every_activation(t):
    x = np.linspace(-2.0, 2.0, 6).reshape(2, 3)
    return recompute_each(
        t,
        [
            (ONE_LAYER, x, [], [0]),
            (ONE_LAYER, x, [0], [0]),
            (TWO_LAYERS, x, [], [0, 1]),
            (TWO_LAYERS, x, [0], [0, 1]),
            (TWO_LAYERS, x, [1], [0, 1]),
            (MIXED_FNS, x, [2, 5], range(len(MIXED_FNS))),
        ],
    )
