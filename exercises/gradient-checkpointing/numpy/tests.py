"""Tests for the NumPy track of gradient-checkpointing.

The hidden tests sweep fixed sets of checkpoint lists: empty, ``[0]``, the last layer, every
layer, unsorted lists, lists with repeats, and one- and two-layer networks, recomputing
every ``layer_idx`` of each. Each test is a table of cases (``t.cases``), labelled by what
the case exercises: a failure names its first failing case and that case's call. Forward
rules point at hint 1, the choice of the starting checkpoint at hint 2, the bounds of the
replay at hint 3.
"""

import numpy as np

from graders.sandbox.checkpointing import counting_layers, recording
from graders.sandbox.testing import Case, example, from_code, test

# The four layers of the statement's example. Each list of layers is written as code, which
# a failing case shows the learner (from_code).
EXAMPLE_FNS = from_code(
    "[lambda a: a * 2, lambda a: a + 1, lambda a: a * 3, lambda a: a - 1]", globals()
)

# Eight layers that each change the values differently, so running one layer too many or
# too few always shows in the result. Each returns a new array of its input's dtype.
MIXED_FNS = from_code(
    "[lambda a: a * 2.0, np.tanh, lambda a: a + 0.5, lambda a: a**2, "
    "lambda a: a[::-1] - 1.0, np.sin, lambda a: a * -1.5 + 0.25, lambda a: a - a.mean()]",
    globals(),
)
ONE_LAYER = from_code("[np.tanh]", globals())
# Layers that keep an integer or a bool array's dtype: its copies must keep it too.
INT_FNS = from_code("[lambda a: a * 3, lambda a: a - 2, lambda a: a // 2, lambda a: -a]", globals())
BOOL_FNS = from_code("[np.logical_not, lambda a: a ^ a[::-1], np.logical_not]", globals())
TWO_LAYERS = from_code("[lambda a: a * 3.0 - 0.5, np.cos]", globals())
# Layers that change their input in place and return it.
IN_PLACE_FNS = from_code(
    "[lambda a: np.add(a, 1.0, out=a), lambda a: a * 2.0, lambda a: np.add(a, 1.0, out=a), "
    "lambda a: np.multiply(a, 3.0, out=a), lambda a: np.add(a, 1.0, out=a)]",
    globals(),
)


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


def forward(t, fns, x, indices):
    """One case of checkpoint_forward: which layers ran, what was saved, the output."""
    layers = counting_layers(fns)
    with recording(t, "forward") as calls:
        output, saved = t.call("checkpoint_forward", layers, x, list(indices))
    return {"calls during forward": calls, "saved": saved, "output": output}


def forward_then_change(t, x, indices, change):
    """checkpoint_forward on layers that work in place, then ``change`` applied to the
    returned output in place, as a caller may: ``saved`` must not follow."""
    layers = counting_layers(IN_PLACE_FNS)
    output, saved = t.call("checkpoint_forward", layers, x, indices)
    output_before = np.copy(output)
    change(output)
    return {"output": output_before, "saved after the output was changed in place": saved}


def recompute_cases(t, x, rows):
    """A case per row (description, layer functions, checkpoint list, layers to rebuild)
    and layer: recompute it from the checkpoints of a plain forward pass."""

    built = {}  # per row: its layers and saved dict, built once (t.call copies the arrays)

    def recompute(fns, indices, k):
        key = (id(fns), tuple(indices))
        if key not in built:
            built[key] = counting_layers(fns), saved_dict(fns, x, indices)
        layers, saved = built[key]
        with recording(t, f"recompute of layer {k}") as calls:
            value = t.call("checkpoint_recompute", layers, saved, list(indices), k)
        return {f"calls when recomputing layer {k}": calls, f"activation {k}": value}

    return t.cases(
        [
            Case(f"{about}, layer {k}", fns=fns, indices=c, k=k)
            for about, fns, c, ks in rows
            for k in ks
        ],
        recompute,
    )


def not_in(indices, count=len(MIXED_FNS)):
    return [k for k in range(count) if k not in indices]


@example("forward keeps the input and the outputs of layers 1 and 3", hint=1)
def example_forward(t):
    layers = counting_layers(EXAMPLE_FNS)
    output, saved = t.call("checkpoint_forward", layers, np.array([1.0]), [1, 3])
    return {"output": output, "saved": saved}


@example("recompute of layer 2 starts from checkpoint 1", hint=2)
def example_recompute(t):
    layers = counting_layers(EXAMPLE_FNS)
    saved = {-1: np.array([1.0]), 1: np.array([3.0]), 3: np.array([8.0])}
    with recording(t, "recompute") as calls:
        value = t.call("checkpoint_recompute", layers, saved, [1, 3], 2)
    return {"activation 2": value, "calls during recompute": calls}


def add_100(output):
    output += 100.0


def times_minus_7(output):
    output *= -7.0


@test(
    "forward runs each layer once and saves exactly the input and the checkpoint outputs",
    hint=1,
    exact_dtype=True,
    reveal="summary",
)
def exact_keys(t):
    fns = MIXED_FNS[:7]
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    x32 = np.array([0.3, -0.7, 1.1, 0.05], dtype=np.float32)
    return t.cases(
        [
            Case("two checkpoints", fns=fns, x=x, indices=[2, 5]),
            Case("no checkpoint", fns=fns, x=x, indices=[]),
            Case("only layer 0", fns=fns, x=x, indices=[0]),
            Case("only the last layer", fns=fns, x=x, indices=[6]),
            Case("an unsorted list", fns=fns, x=x, indices=[5, 2]),
            Case("a repeated index", fns=fns, x=x, indices=[4, 1, 1]),
            Case("every layer, last first", fns=fns, x=x, indices=[6, 5, 4, 3, 2, 1, 0]),
            Case("a float32 input", fns=fns, x=x32, indices=[3, 0]),
            Case("an int64 input", fns=INT_FNS, x=np.arange(-3, 3).reshape(2, 3), indices=[1, 2]),
            Case("a bool input", fns=BOOL_FNS, x=np.array([True, False, False]), indices=[0]),
            Case("a one-layer network, no checkpoint", fns=ONE_LAYER, x=x, indices=[]),
            Case("a one-layer network, layer 0 twice", fns=ONE_LAYER, x=x, indices=[0, 0]),
        ],
        lambda fns, x, indices: forward(t, fns, x, indices),
    )


@test(
    "saved activations are copies (layers that work in place)",
    hint=1,
    exact_dtype=True,
    reveal="summary",
)
def copies(t):
    x32 = np.array([[0.25, -1.0], [2.0, 0.5]], dtype=np.float32)
    return t.cases(
        [
            Case(
                "in-place layers, then the caller adds 100 to the output",
                x=np.array([1.0, -2.0, 0.5]),
                indices=[0, 2, 4],
                change=add_100,
            ),
            # float32, an unsorted list with a repeat, and the last layer not checkpointed.
            Case(
                "in-place layers on float32, then the caller multiplies the output by -7",
                x=x32,
                indices=[3, 1, 3],
                change=times_minus_7,
            ),
        ],
        lambda x, indices, change: forward_then_change(t, x, indices, change),
    )


@test(
    "recompute rebuilds every activation, from the input when no checkpoint is below it",
    hint=3,
    reveal="summary",
)
def every_activation(t):
    # No checkpoint below the layer rebuilt: every replay starts from the input, so this
    # test is about the replay's bounds alone (which checkpoint to start from is the
    # next tests' rule).
    x = np.linspace(-2.0, 2.0, 6).reshape(2, 3)
    return recompute_cases(
        t,
        x,
        [
            ("a one-layer network, no checkpoint", ONE_LAYER, [], [0]),
            ("a two-layer network, no checkpoint", TWO_LAYERS, [], [0, 1]),
            ("a two-layer network, layer 1 saved", TWO_LAYERS, [1], [0]),
            ("eight layers, no checkpoint", MIXED_FNS, [], range(len(MIXED_FNS))),
            ("eight layers, layers 5 and 6 saved", MIXED_FNS, [5, 6], range(5)),
        ],
    )


@test("recompute runs only the layers after the nearest checkpoint", hint=2, reveal="summary")
def nearest_checkpoint(t):
    x = np.array([0.2, -0.4, 0.9, 1.3])
    lists = {
        "three checkpoints": [1, 4, 6],
        "only layer 0": [0],
        "layers 0 and 5": [0, 5],
        "only the last layer": [7],
    }
    return recompute_cases(t, x, [(a, MIXED_FNS, c, not_in(c)) for a, c in lists.items()])


@test(
    "recompute of a checkpointed layer starts from the checkpoint below it",
    hint=2,
    reveal="summary",
)
def checkpointed_layer(t):
    x = np.array([0.2, -0.4, 0.9, 1.3])
    lists = {
        "three checkpoints": [1, 4, 6],
        "only layer 0": [0],
        "layers 0 and 1": [0, 1],
        "only the last layer": [7],
        "every layer": list(range(len(MIXED_FNS))),
    }
    return recompute_cases(t, x, [(a, MIXED_FNS, c, c) for a, c in lists.items()])


@test(
    "recompute ignores the order of the checkpoint list and its repeats", hint=2, reveal="summary"
)
def unsorted_and_repeated(t):
    x = np.array([0.3, -0.7, 1.1])
    every = range(len(MIXED_FNS))
    return recompute_cases(
        t,
        x,
        [
            ("an unsorted list", MIXED_FNS, [4, 1], every),
            ("an unsorted list of three", MIXED_FNS, [6, 0, 3], every),
            ("a repeated index", MIXED_FNS, [5, 2, 5], every),
        ],
    )
