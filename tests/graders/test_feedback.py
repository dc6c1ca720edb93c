"""What a learner reads for a failing test: the call, every differing observation (call
records first), keys beside the names they index, library noise trimmed."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

from graders.grading import feedback
from graders.grading.compare import Tolerance, differences
from graders.grading.verdicts import plain_message
from graders.sandbox import runner
from graders.sandbox.checkpointing import counting_layers, recording
from graders.sandbox.testing import Scenario, describe_argument, describe_result
from graders.sandbox.wire import ArrayObs, CallsObs

PARAMETERS = {
    "checkpoint_recompute": ("layers", "saved_activations", "checkpoint_indices", "layer_idx")
}


# --- describing and rendering a call ---


@pytest.mark.parametrize(
    ("value", "described"),
    [
        (3, ("3", True)),
        (None, ("None", True)),
        ([4, 1], ("[4, 1]", True)),
        ([], ("[]", True)),
        (list(range(30)), ("a list of 30 items", False)),
        ([abs, abs], ("a list of 2 functions", False)),
        (nn.ModuleList([nn.Tanh()] * 3), ("a ModuleList of 3 modules", False)),
        ({-1: 1.0, 2: 3.0}, ("a dict with 2 keys", False)),
        (np.zeros((2, 3)), ("an array of shape (2, 3)", False)),
        (torch.zeros(4), ("a tensor of shape (4,)", False)),
        ("x" * 100, ("a str", False)),
    ],
)
def test_arguments_are_described_short_or_by_kind(value, described):
    assert describe_argument(value) == described


def test_a_call_reads_with_the_references_parameter_names():
    args = [
        ("a list of 8 functions", False),
        ("a dict with 3 keys", False),
        ("[4, 1]", True),
        ("3", True),
    ]
    call = feedback.Call("checkpoint_recompute", args, {})
    assert (
        call.render(PARAMETERS)
        == "checkpoint_recompute(layers, saved_activations, [4, 1], layer_idx=3)"
    )
    # Without names (an entry point the reference does not define), the values stand alone.
    assert (
        call.render({})
        == "checkpoint_recompute(a list of 8 functions, a dict with 3 keys, [4, 1], 3)"
    )
    keyword = feedback.Call("f", [], {"segment_size": ("2", True), "x": ("a tensor", False)})
    assert keyword.render({}) == "f(segment_size=2, x)"


def test_the_runner_ties_each_observation_to_the_call_it_came_from():
    def recompute(layers, saved, indices, k):
        return np.ones(2) * k

    t = Scenario({"recompute": recompute}, ["recompute"])
    layers = counting_layers([abs, abs])
    first = t.call("recompute", layers, {}, [1], 0)
    with recording(t, "second") as calls:
        second = t.call("recompute", layers, {}, [1], 1)
    with recording(t, "backward") as later:  # no call inside: goes on from the last one
        pass
    observed = {"first": first, "second": second, "calls": calls, "later": later, "n": 1.0}
    notes = runner.call_notes(t, observed)
    assert notes["call_of"] == {"first": 0, "second": 1, "calls": 1, "later": 1}
    assert notes["failed_call"] == 1
    calls_seen, origins, failed = feedback.read_calls(json.loads(json.dumps(notes)))
    assert origins == notes["call_of"] and failed == 1
    assert calls_seen[0].render({"recompute": ("layers", "saved", "indices", "k")}) == (
        "recompute(layers, saved, [1], k=0)"
    )


def test_a_tuple_result_and_its_keys_keep_their_call():
    def forward(x):
        return x, {-1: x}

    t = Scenario({"forward": forward}, ["forward"])
    t.call("forward", np.zeros(1))
    output, saved = t.call("forward", np.ones(1))
    keys = t.keys(saved)
    assert t.call_of(output) == t.call_of(saved) == t.call_of(keys) == 1
    assert t.call_of([1, 2]) is None  # built by the test, two calls: cannot be told


def test_a_tensors_values_keep_their_call_and_clones_keep_the_graph():
    def identity(x):
        return x

    t = Scenario({"f": identity}, ["f"])
    x = torch.ones(2, requires_grad=True)
    t.call("f", x)
    with torch.no_grad():  # a clone made here still belongs to x's graph
        same = t.call("f", x)
    assert same.requires_grad and same.grad_fn is not None
    assert t.call_of(t.values(same)) == 1


@pytest.mark.parametrize(
    "header",
    [
        {"calls": "nonsense"},
        {"calls": [[0, "f", [["x", "yes"]], {}]]},  # short is not a bool
        {"calls": [[0, "not a name", [], {}]]},
        {"calls": [[0, "f", [["a\nb", True]], {}]]},  # a line break in an argument
        {"calls": [[0, "f", [["x" * 201, True]], {}]]},
        {"calls": [[0, "f", [], {"bad key": ["x", True]}]]},
        {"calls": [[0, "f", [["x", True]] * 21, {}]]},
    ],
)
def test_malformed_call_notes_are_dropped(header):
    calls, origins, failed = feedback.read_calls({**header, "call_of": {"a": 0}, "failed_call": 0})
    assert (calls, origins, failed) == ({}, {}, None)


# --- every difference, the telling ones first ---


def test_the_first_failing_call_is_shown_with_every_difference_call_records_first():
    expected = {
        "activation 3": ArrayObs(np.array([1.0])),
        "calls when recomputing layer 3": CallsObs("r", (2, 3)),
        "same": 1,
        "activation 4": ArrayObs(np.array([1.0])),
        "calls when recomputing layer 4": CallsObs("r", (2, 3, 4)),
    }
    got = {
        "activation 3": ArrayObs(np.array([2.0])),
        "calls when recomputing layer 3": CallsObs("r", (0, 1, 2, 3)),
        "same": 1,
        "activation 4": ArrayObs(np.array([2.0])),
        "calls when recomputing layer 4": CallsObs("r", (0, 1, 2, 3, 4)),
    }
    problems = differences(expected, got, Tolerance(reveal="full"))
    assert [key for key, _ in problems] == [
        "calls when recomputing layer 3",
        "calls when recomputing layer 4",
        "activation 3",
        "activation 4",
    ]
    calls = {
        0: feedback.Call("checkpoint_recompute", [("3", True)], {}),
        1: feedback.Call("checkpoint_recompute", [("4", True)], {}),
    }
    origins = {
        "activation 3": 0,
        "calls when recomputing layer 3": 0,
        "activation 4": 1,
        "calls when recomputing layer 4": 1,
    }
    assert feedback.message(problems, calls, origins, {}).splitlines() == [
        "In checkpoint_recompute(3):",
        "calls when recomputing layer 3: layers 0, 1, 2, 3 ran; only layers 2, 3 should run",
        "activation 3: values differ — expected [1.], got [2.]",
        "…and 2 more observations differ in 1 other call",
    ]


def test_what_the_learners_code_raised_leads_the_records_it_explains():
    """A backward that raised in the second call: its error is shown first, with its call,
    not the first call's records that differ because of it (issue 27)."""
    expected = {
        "calls during backward": CallsObs("b", (5, 4, 3, 2, 1, 0)),
        "gradient of x": 1.0,
        "backward pass": "finished",
    }
    got = {
        "calls during backward": CallsObs("b", (5, 4, 3)),
        "gradient of x": 2.0,
        "backward pass": "raised RuntimeError: returned an incorrect number of gradients",
    }
    problems = differences(expected, got, Tolerance(reveal="summary"))
    assert problems[0][0] == "backward pass"
    calls = {0: feedback.Call("checkpoint", [("fn", False)], {}), 1: feedback.Call("g", [], {})}
    origins = {"calls during backward": 0, "gradient of x": 0, "backward pass": 1}
    lines = feedback.message(problems, calls, origins, {}).splitlines()
    assert lines[:2] == [
        "In g():",
        "backward pass: value differs — got 'raised RuntimeError: returned an incorrect "
        "number of gradients'",
    ]
    # Without an exception the first call leads, as before.
    del expected["backward pass"], got["backward pass"]
    problems = differences(expected, got, Tolerance(reveal="summary"))
    assert feedback.message(problems, calls, origins, {}).startswith("In checkpoint(fn):")


def test_a_long_list_of_differences_says_how_many_more():
    expected = {f"v{i}": i for i in range(8)}
    got = {f"v{i}": -1 for i in range(8)}
    problems = differences(expected, got, Tolerance(reveal="full"))
    text = feedback.message(problems, {}, {}, {})
    assert len(text.splitlines()) == feedback.MAX_SHOWN + 1
    assert text.endswith("…and 3 more observations differ")


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("saved after the output was changed in place", "saved[-1] after the output was"),
        ("saved with the list [4, 1]", "saved[-1] with the list [4, 1]"),
        ("saved", "saved[-1]"),
        ("parameter gradients", "parameter gradients[-1]"),
    ],
)
def test_a_key_is_shown_beside_the_name_it_indexes(name, shown):
    ((_, problem),) = differences({name: {-1: 1.0}}, {name: {-1: 2.0}}, Tolerance())
    assert problem.startswith(shown)


# --- library noise ---


def test_library_errors_are_trimmed_to_what_a_learner_needs():
    torch_style = (
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)\n"
        "Hint: set TORCH_LOGS=+dynamo for more\n"
        "See https://pytorch.org/docs/stable/notes.html\n"
        "\n"
        "You can suppress this exception and fall back to eager by setting:\n"
        "    import torch._dynamo\n"
    )
    assert plain_message(torch_style) == "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)"
    assert plain_message("x" * 2000).endswith("…") and len(plain_message("x" * 2000)) == 600
    assert plain_message("https://only.a/link") == "https://only.a/link"  # never empty


def test_what_learner_code_returned_is_described_without_running_its_methods():
    class Meta(type):
        @property
        def __name__(cls):
            raise AssertionError("a metaclass property ran")

    class Sneaky(metaclass=Meta):
        def __len__(self):
            raise AssertionError("a learner's __len__ ran")

    assert describe_result(None) == "None"
    assert describe_result((1, 2)) == "a tuple of 2 items"
    assert describe_result({1: 2}) == "a dict with 1 key"
    assert describe_result(np.zeros((2, 3))) == "an array of shape (2, 3)"
    assert describe_result(torch.zeros(4)) == "a tensor of shape (4,)"
    assert describe_result(Sneaky()) == "an object of type Sneaky"


# --- the failing case as code -----------------------------------------------------------


def test_a_failing_call_shows_its_inputs_as_code_to_paste():
    """The arguments named by their parameter are written out below the call, so that a
    learner can run the failing case themselves (issue 27)."""
    call = feedback._call(
        [
            0,
            "checkpoint_forward",
            [["a list of 2 functions", False], ["an array of shape (2,)", False], ["[1]", True]],
            {},
            "two layers",
            {"args": ["[np.tanh, np.sin]", "np.array([1.0, 2.0], dtype=np.float64)", "[1]"]},
        ]
    )
    assert call is not None
    parameters = {"checkpoint_forward": ("layers", "x", "checkpoint_indices")}
    problems = [("case 'two layers'", "saved: keys differ")]
    lines = feedback.message(problems, {0: call}, {"case 'two layers'": 0}, parameters)
    assert lines.splitlines() == [
        "In case 'two layers', checkpoint_forward(layers, x, [1]):",
        "    layers = [np.tanh, np.sin]",
        "    x = np.array([1.0, 2.0], dtype=np.float64)",
        "saved: keys differ",
    ]


@pytest.mark.parametrize(
    "code",
    [
        {"args": ["a\nb", None, None]},  # a line break: not one line of code
        {"args": ["x" * 601, None, None]},
        {"args": "np.array([1.0])"},
        ["np.array([1.0])"],
    ],
)
def test_malformed_code_of_a_call_costs_only_the_lines_to_paste(code):
    call = feedback._call([0, "f", [["an array", False]], {}, None, code])
    assert call is not None and call.setup({"f": ("x",)}) == []
