"""``t.changed_in_place``: which arguments of the last call its code changed in place.

The code gets copies (``t.call``), so a change never reaches the test's own values, and
before this a statement's "leave the inputs alone" could not be checked (issue 29's
outside review: three solutions that overwrote the caller's targets passed)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from graders.sandbox.testing import Scenario


def scenario(code: str) -> Scenario:
    namespace: dict[str, object] = {"np": np, "torch": torch}
    exec(code, namespace)  # a submission's module
    return Scenario(namespace, ["f"])


LEAVES_THEM = "def f(x, y, scale=None):\n    return x * 2\n"


@pytest.mark.parametrize(
    ("code", "changed"),
    [
        (LEAVES_THEM, []),
        ("def f(x, y, scale=None):\n    x -= 1\n    return x\n", ["x"]),
        ("def f(x, y, scale=None):\n    y[0] = 7\n    return y\n", ["y"]),
        ("def f(x, y, scale=None):\n    x[:] = x[::-1]\n    scale['a'][0] = 0\n", ["x", "scale"]),
        # Rebinding a name changes nothing the caller holds.
        ("def f(x, y, scale=None):\n    x = x - 1\n    y = None\n    return x\n", []),
    ],
)
def test_numpy_arguments_changed_in_place_are_named(code: str, changed: list[str]) -> None:
    t = scenario(code)
    x, y = np.array([1.0, np.nan, 3.0]), np.array([1, 2])
    t.call("f", x, y, scale={"a": np.array([5.0])})
    assert t.changed_in_place("x", "y") == changed
    assert np.isnan(x[1]) and x[0] == 1.0 and y[0] == 1  # the test's own never change


def test_tensors_nan_and_a_resize_count_too() -> None:
    x = torch.tensor([1.0, float("nan")], requires_grad=False)
    t = scenario(LEAVES_THEM)
    t.call("f", x, torch.arange(3))
    assert t.changed_in_place("x", "y") == []  # NaN where it was is no change
    t = scenario("def f(x, y):\n    x.nan_to_num_(0.0)\n    y.resize_(2)\n")
    t.call("f", x, torch.arange(3))
    assert t.changed_in_place("x", "y") == ["x", "y"]
    t = scenario("def f(x, y):\n    y.add_(1)\n")
    t.call("f", x, torch.arange(3))
    assert t.changed_in_place("x", "y") == ["y"]


def test_objects_passed_as_they_are_never_count() -> None:
    t = scenario("def f(layers, y):\n    layers.append(1)\n")
    t.call("f", [np.zeros(1), len], np.zeros(1))
    assert t.changed_in_place("layers", "y") == ["layers"]  # a list is copied: its length
    module = torch.nn.Linear(1, 1)
    t = scenario("def f(m, y):\n    m.weight.data.zero_()\n")
    t.call("f", module, np.zeros(1))
    assert t.changed_in_place("m", "y") == []  # the module itself: nothing to compare with


def test_it_needs_a_call_and_a_name_per_argument() -> None:
    t = scenario(LEAVES_THEM)
    with pytest.raises(ValueError, match="make one first"):
        t.changed_in_place("x", "y")
    t.call("f", np.zeros(1), np.zeros(1))
    with pytest.raises(ValueError, match="one name for each of 2 arguments"):
        t.changed_in_place("x")
