"""The test-case API for exercise authors.

A test case is a *scenario*: a function that builds inputs, calls the learner's entry
points through ``t.call`` and returns a dict of *observations*. The grader runs the same
scenario once on the reference solution (in a sandbox that never sees learner code) and
once on the submission, then compares the two observation dicts in the server. Authors
never write expected values.

Examples
--------
A test in ``exercises/<slug>/<track>/tests.py``::

    import numpy as np
    from graders.testing import test

    @test("doubles every element", example=True, hint=1)
    def doubles(t):
        x = np.arange(4.0)
        return {"result": t.call("double", x)}

Observations can be arrays, tensors (compared with dtype, shape, values, ``requires_grad``
and whether they have a ``grad_fn``), numbers, strings, lists, tuples, dicts (keys first),
and :class:`Calls` records. Every scenario starts with ``random``, NumPy and torch seeded
identically, and ``t.call`` hands the learner copies of arrays and tensors.

This module runs inside the sandbox; it must stay free of server code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from graders.harness.encode import Calls

try:
    import torch
except ImportError:  # pragma: no cover - torch is a runtime dependency
    torch = None  # type: ignore[assignment]

__all__ = ["Calls", "Layer", "MissingEntryPoint", "Scenario", "TestSpec", "test"]

Reveal = Literal["full", "summary", "none"]


@dataclass(frozen=True)
class TestSpec:
    """A registered test case and its options.

    Parameters
    ----------
    name:
        Shown to the learner; unique within a track.
    example:
        Visible example run by *Run*; otherwise a hidden test run by *Submit*.
    hint:
        1-based number of the hint that helps with a failure of this test.
    rtol, atol:
        Tolerance for floating-point values (``numpy.isclose`` semantics). ``0, 0`` asks
        for exact equality.
    exact_dtype:
        Compare dtypes exactly (``float32`` is not ``float64``); by default only the
        kind (float, integer, bool, complex) must match.
    reveal:
        How much of the expected value a failure message may show: ``"full"`` (values),
        ``"summary"`` (shapes, dtypes, keys, flags, but no values) or ``"none"`` (only
        which rule failed). Examples default to ``"full"``, hidden tests to ``"summary"``.
    """

    name: str
    scenario: Callable[[Scenario], dict[str, Any]]
    example: bool = False
    hint: int | None = None
    rtol: float = 1e-5
    atol: float = 1e-8
    exact_dtype: bool = False
    reveal: Reveal = "summary"

    def options(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "example": self.example,
            "hint": self.hint,
            "rtol": self.rtol,
            "atol": self.atol,
            "exact_dtype": self.exact_dtype,
            "reveal": self.reveal,
        }


REGISTRY: list[TestSpec] = []


def test(
    name: str,
    *,
    example: bool = False,
    hint: int | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    exact_dtype: bool = False,
    reveal: Reveal | None = None,
) -> Callable[[Callable[[Scenario], dict[str, Any]]], Callable[[Scenario], dict[str, Any]]]:
    """Register a scenario as a test case (see :class:`TestSpec` for the options).

    Examples
    --------
    >>> @test("empty checkpoint list", hint=2, rtol=0, atol=0)
    ... def empty(t):
    ...     return {"output": t.call("double", np.zeros(3))}
    """

    def register(fn: Callable[[Scenario], dict[str, Any]]) -> Callable[[Scenario], dict[str, Any]]:
        spec = TestSpec(
            name=name,
            scenario=fn,
            example=example,
            hint=hint,
            rtol=rtol,
            atol=atol,
            exact_dtype=exact_dtype,
            reveal=reveal or ("full" if example else "summary"),
        )
        REGISTRY.append(spec)
        return fn

    # Tests are collected when the module is executed; a test function named test_* is
    # not collected by pytest either way, so the name ``test`` does not clash.
    return register


test.__test__ = False  # type: ignore[attr-defined]  # keep pytest from collecting it


class MissingEntryPoint(Exception):
    """The submission does not define a function the test calls."""


class Layer:
    """A callable that counts its calls and reports them to active recordings.

    Made by :meth:`Scenario.counting_layers`; ``layer.calls`` is the total number of
    calls, ``layer.index`` its position.
    """

    def __init__(self, fn: Callable[[Any], Any], index: int, scenario: Scenario) -> None:
        self._fn = fn
        self.index = index
        self.calls = 0
        self._scenario = scenario

    def __call__(self, x: Any) -> Any:
        self.calls += 1
        self._scenario._record(self.index)
        return self._fn(x)

    def __repr__(self) -> str:
        return f"<layer {self.index}>"


@dataclass
class Scenario:
    """What a test function receives as ``t``: the way to call the submission and to
    build observable inputs."""

    namespace: dict[str, Any]
    entry_points: Sequence[str]
    _recordings: list[Calls] = field(default_factory=list)
    last_call: str | None = None

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call entry point ``name`` of the submission with copies of array arguments.

        Arrays are copied; tensors are cloned so that gradients still reach the
        originals. Layers, modules and other objects are passed as they are.

        Examples
        --------
        >>> out, saved = t.call("checkpoint_forward", layers, x, [1, 3])
        """
        if name not in self.entry_points:
            raise ValueError(f"test calls {name!r}, which is not an entry point of this track")
        fn = self.namespace.get(name)
        if not callable(fn):
            raise MissingEntryPoint(name)
        self.last_call = name
        return fn(*_copy_in(args), **_copy_in(kwargs))

    def counting_layers(self, fns: Sequence[Callable[[Any], Any]]) -> list[Layer]:
        """Wrap plain functions as layers that count their calls.

        Examples
        --------
        >>> layers = t.counting_layers([lambda a: a * 2, lambda a: a + 1])
        """
        return [Layer(fn, i, self) for i, fn in enumerate(fns)]

    def counting_modules(self, modules: Any) -> Any:
        """Make each module of a ``torch.nn.ModuleList`` report its forward calls.

        The modules stay ordinary modules (parameters, ``.grad``, hooks all work).

        Examples
        --------
        >>> layers = t.counting_modules(nn.ModuleList(nn.Linear(4, 4) for _ in range(6)))
        """
        for i, module in enumerate(modules):
            module.register_forward_pre_hook(lambda _m, _args, i=i: self._record(i))
        return modules

    @contextlib.contextmanager
    def recording(self, phase: str) -> Iterator[Calls]:
        """Record which counting layers run inside the ``with`` block, in order.

        Examples
        --------
        >>> with t.recording("recompute") as calls:
        ...     t.call("checkpoint_recompute", layers, saved, [1], 2)
        >>> return {"calls during recompute": calls}
        """
        calls = Calls(phase)
        self._recordings.append(calls)
        try:
            yield calls
        finally:
            self._recordings.remove(calls)

    def _record(self, index: int) -> None:
        for calls in self._recordings:
            calls.layers.append(index)

    @staticmethod
    def keys(mapping: Any) -> Any:
        """The sorted keys of a dict, or the value itself when it is not a dict.

        Examples
        --------
        >>> return {"saved keys": t.keys(saved)}
        """
        if type(mapping) is not dict:
            return mapping
        try:
            return sorted(mapping)
        except TypeError:
            return list(mapping)

    @staticmethod
    def grads(module: Any) -> dict[str, Any]:
        """``{parameter name: .grad}`` of a module after a backward (None where unset).

        Examples
        --------
        >>> out.sum().backward()
        >>> return {"parameter gradients": t.grads(layers)}
        """
        return {name: p.grad for name, p in module.named_parameters()}

    @staticmethod
    def values(x: Any) -> Any:
        """A tensor's values as a NumPy array, to compare values but not autograd flags."""
        if torch is not None and isinstance(x, torch.Tensor):
            return x.detach().cpu().numpy().copy()
        return x


def _copy_in(value: Any) -> Any:
    t = type(value)
    if t is np.ndarray:
        return value.copy()
    if torch is not None and t is torch.Tensor:
        return value.clone()
    if t is list or t is tuple:
        return t(_copy_in(v) for v in value)
    if t is dict:
        return {k: _copy_in(v) for k, v in value.items()}
    return value
