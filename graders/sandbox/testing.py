"""The test-case API for exercise authors.

A test case is a *scenario*: a function that builds inputs, calls the learner's entry
points through ``t.call`` and returns a dict of *observations*. The grader runs the same
scenario once on the reference solution (in a sandbox that never sees learner code) and
once on the submission, then compares the two observation dicts in the server. Authors
never write expected values.

Examples
--------
Tests in ``exercises/<slug>/<track>/tests.py``: ``@example`` for a visible example, run
by Run, and ``@test`` for a hidden test, run by Submit::

    import numpy as np
    from graders.sandbox.testing import example, test

    @example("doubles every element", hint=1)
    def doubles(t):
        x = np.arange(4.0)
        return {"result": t.call("double", x)}

    @test("doubles an empty array", hint=1)
    def empty(t):
        return {"result": t.call("double", np.zeros(0))}

Observations can be arrays, tensors (compared with dtype, shape, values, ``requires_grad``
and whether they have a ``grad_fn``), numbers, strings, lists, tuples, dicts (keys first),
and :class:`Calls` records. Every scenario starts with ``random``, NumPy and torch seeded
identically, and ``t.call`` hands the learner copies of arrays and tensors.

A table of named cases inside one test, each reported by its label when it fails::

    @test("keeps the requested activations", hint=1)
    def keeps(t):
        return t.cases(
            [
                Case("no checkpoint", layers=LAYERS, keep=[]),
                Case("an unsorted list", layers=LAYERS, keep=[3, 1]),
            ],
            lambda layers, keep: {"saved": t.call("checkpoint_forward", layers, X, keep)[1]},
        )

This module runs inside the sandbox; it must stay free of server code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from graders.sandbox.memory import held_since, kept_by_graph, start_tracing
from graders.sandbox.records import (
    Calls,
    Kept,
    add_kept,
    note_call,
    start_keeping,
    start_recording,
    stop_recording,
)

try:
    import torch
except ImportError:  # pragma: no cover - torch is a runtime dependency
    torch = None  # type: ignore[assignment]

__all__ = [
    "Calls",
    "Case",
    "Kept",
    "MissingEntryPoint",
    "Scenario",
    "TestSpec",
    "case_key",
    "example",
    "test",
]


Reveal = Literal["full", "summary", "none"]


@dataclass(frozen=True)
class TestSpec:
    """A registered test case and its options.

    Parameters
    ----------
    name:
        Shown to the learner; unique within a track. It may change: the ``id`` is what
        keeps the test's history.
    id:
        The test's identity in statistics, exports and regrades (letters, digits, ``_``,
        ``-``, ``.``; at most 64 characters). By default the scenario function's name, so
        renaming the display name keeps the history; give one explicitly to keep it
        across a rename of the function too. Unique within a track.
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
        which rule failed). The default is ``"full"``, right for a visible example; a
        hidden test on inputs that are the same on every Submit should say ``"summary"``:
        values read off its failures and replayed by call order would pass it without
        solving anything (``drill validate`` warns; every shipped hidden test does so).
    per_learner:
        Draw this test's random inputs from a seed of its own for each learner (from the
        learner and the exercise version) instead of one seed for everyone. The reference
        runs on the same draws; its observations are cached per seed.
    """

    name: str
    scenario: Callable[[Scenario], dict[str, Any]]
    id: str = ""
    example: bool = False
    hint: int | None = None
    rtol: float = 1e-5
    atol: float = 1e-8
    exact_dtype: bool = False
    reveal: Reveal = "full"
    per_learner: bool = False

    def options(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "example": self.example,
            "hint": self.hint,
            "rtol": self.rtol,
            "atol": self.atol,
            "exact_dtype": self.exact_dtype,
            "reveal": self.reveal,
            "per_learner": self.per_learner,
        }


REGISTRY: list[TestSpec] = []


Scenario_ = Callable[["Scenario"], dict[str, Any]]
_NOT_GIVEN: Any = object()


def test(
    name: str,
    *,
    hint: int | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    exact_dtype: bool = False,
    reveal: Reveal = "full",
    id: str | None = None,
    per_learner: bool = False,
    example: Any = _NOT_GIVEN,
) -> Callable[[Scenario_], Scenario_]:
    """Register a scenario as a hidden test, run by Submit (see :class:`TestSpec` for
    the options). A visible example, run by Run, is an :func:`example` instead.

    Examples
    --------
    >>> @test("empty checkpoint list", hint=2, rtol=0, atol=0)
    ... def empty(t):
    ...     return {"output": t.call("double", np.zeros(3))}
    """
    if example is not _NOT_GIVEN:
        raise TypeError(
            f"test {name!r}: write a visible example as @example({name!r}, ...) instead of "
            "@test(..., example=...); @test is always a hidden test"
        )
    options = {"hint": hint, "rtol": rtol, "atol": atol, "exact_dtype": exact_dtype}
    return _registering(name, id, False, reveal, per_learner, options)


def example(
    name: str,
    *,
    hint: int | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-8,
    exact_dtype: bool = False,
    reveal: Reveal = "full",
    id: str | None = None,
    per_learner: bool = False,
) -> Callable[[Scenario_], Scenario_]:
    """Register a scenario as a visible example, run by Run (and by Submit too), with
    the options of :func:`test`. A Run's job carries the ``@example`` functions of
    ``tests.py`` alone: the server drops every ``@test`` from the module's syntax tree, so
    a hidden test never reaches a Run's process.

    Examples
    --------
    >>> @example("the worked example", hint=1)
    ... def worked(t):
    ...     return {"output": t.call("double", np.arange(3.0))}
    """
    options = {"hint": hint, "rtol": rtol, "atol": atol, "exact_dtype": exact_dtype}
    return _registering(name, id, True, reveal, per_learner, options)


def _registering(
    name: str,
    id: str | None,
    is_example: bool,
    reveal: Reveal,
    per_learner: bool,
    options: dict[str, Any],
) -> Callable[[Scenario_], Scenario_]:
    def register(fn: Scenario_) -> Scenario_:
        spec = TestSpec(
            name=name,
            scenario=fn,
            id=id if id is not None else getattr(fn, "__name__", ""),
            example=is_example,
            reveal=reveal,
            per_learner=per_learner,
            **options,
        )
        REGISTRY.append(spec)
        return fn

    # Tests are collected when the module is executed; a test function named test_* is
    # not collected by pytest either way, so the name ``test`` does not clash.
    return register


test.__test__ = False  # type: ignore[attr-defined]  # keep pytest from collecting it
example.__test__ = False  # type: ignore[attr-defined]


class MissingEntryPoint(Exception):
    """The submission does not define a function the test calls."""


def _counting_layer(fn: Callable[[Any], Any], index: int) -> Callable[[Any], Any]:
    """A layer that records its calls. The function it wraps is held by a closure, not an
    attribute: there is no ``layer._fn`` through which to run it uncounted."""

    def layer(x: Any) -> Any:
        layer.calls += 1  # type: ignore[attr-defined]
        note_call(index, x)
        return fn(x)

    layer.index = index  # type: ignore[attr-defined]
    layer.calls = 0  # type: ignore[attr-defined]
    layer.__name__ = layer.__qualname__ = f"layer_{index}"
    return layer


def _counting_forward(module: Any, index: int) -> Callable[..., Any]:
    """The module's own forward, reporting each call: installed as the module's
    ``forward`` attribute, it counts ``layer(h)`` (``Module.__call__`` looks ``forward``
    up on the instance), ``layer.forward(h)`` and ``checkpoint(layer, h)`` alike, and a
    call that is counted always runs the forward."""
    forward = module.forward

    def counted_forward(*args: Any, **kwargs: Any) -> Any:
        note_call(index, args)
        return forward(*args, **kwargs)

    return counted_forward


def _identity(value: Any) -> Any:
    return value


@dataclass(slots=True)
class Scenario:
    """What a test function receives as ``t``: the way to call the submission and to
    build observable inputs."""

    namespace: dict[str, Any]
    entry_points: Sequence[str]
    # The seed random, NumPy and torch were seeded with for this test (the same for the
    # reference and the submission; per learner for a ``per_learner`` test).
    seed: int = 0
    last_call: str | None = None
    returned: str | None = None  # what the last call returned, in words (describe_result)
    # Called after every call of learner code (graders.sandbox.integrity).
    after_call: Callable[[], None] | None = None
    # Each call made, described for the learner: (entry point, args, kwargs, label of the
    # case it was made in or None), each argument a (text, short) pair (describe_argument).
    log: list[CallDescription] = field(default_factory=list)
    # The label of the case of ``cases`` running now (None outside a case).
    case: str | None = None
    # How many tables of random cases this test has drawn: each gets its own stream.
    draws: int = 0
    # id(object) -> (the object, kept alive; index in ``log`` of the call it came from),
    # so that a failing observation can be shown with the call that produced it.
    origins: dict[int, tuple[Any, int]] = field(default_factory=dict)
    # For each ``kept_for_backward`` block open now, the (arguments, result) of each call
    # made in it: where its reading of the graph starts.
    watching: list[list[tuple[Any, Any]]] = field(default_factory=list)

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
        self.log.append(
            (
                name,
                [describe_argument(a) for a in args],
                {k: describe_argument(v) for k, v in kwargs.items()},
                self.case,
            )
        )
        self.returned = None
        result = fn(*_copy_in(args), **_copy_in(kwargs))
        for calls in self.watching:
            calls.append(((args, kwargs), result))
        if self.after_call is not None:
            self.after_call()
        self.returned = describe_result(result)
        self._came_from(result, len(self.log) - 1)
        if type(result) is tuple or type(result) is list:
            for item in result[:16]:
                self._came_from(item, len(self.log) - 1)
        return result

    def _came_from(self, value: Any, call: int) -> None:
        if value is not None and type(value) not in (bool, int, float, str):
            self.origins[id(value)] = (value, call)

    def _origin(self, value: Any) -> int | None:
        origin = self.origins.get(id(value))
        return origin[1] if origin is not None and origin[0] is value else None

    def _inherit(self, derived: Any, source: Any) -> None:
        """``derived`` (keys, values) came from the same call as ``source``."""
        call = self._origin(source)
        if call is not None:
            self._came_from(derived, call)

    def call_of(self, value: Any) -> int | None:
        """The index in ``log`` of the call an observed value came from: the call that
        returned it (or the tuple it was part of), the call made inside the recording it
        is, the only call of the test; None when that cannot be told."""
        call = self._origin(value)
        if call is not None:
            return call
        return 0 if len(self.log) == 1 else None

    def cases(
        self,
        table: Iterable[Case] | Mapping[str, Any] | Iterable[tuple[str, Any]],
        check: Callable[..., dict[str, Any]],
    ) -> dict[str, dict[str, Any]]:
        """Run ``check`` on each case of ``table`` and return every case's observations,
        each under its label: a failure names the first failing case and its call.

        ``table`` is a list of :class:`Case`, each run as ``check(**arguments)``. The older
        forms still work: labels mapped to arguments, as a dict or as ``(label, arguments)``
        pairs (pairs catch a repeated label, which a dict silently merges), a tuple of
        arguments spread into ``check`` and any other value passed as its only argument.
        One table does not mix Case items with the other forms.
        ``check`` makes the case's call (one call per case reads best: the message shows
        it) and returns a dict of observations, as a test does. Labels are unique, non-empty
        single lines of at most 100 characters.

        Examples
        --------
        >>> return t.cases(
        ...     [Case("no checkpoint", keep=[]), Case("an unsorted list", keep=[3, 1])],
        ...     lambda keep: {"saved": t.call("checkpoint_forward", layers, x, keep)[1]},
        ... )
        """
        if self.case is not None:
            raise ValueError(f"cases cannot be nested: a table of cases inside case {self.case!r}")
        items = _case_table(table)
        return {
            case_key(label): self._run_case(label, args, keywords, check)
            for label, args, keywords in items
        }

    def random_cases(
        self,
        count: int,
        draw: Callable[[np.random.Generator], Any],
        check: Callable[..., dict[str, Any]],
        name: str = "random case",
    ) -> dict[str, dict[str, Any]]:
        """``count`` cases whose arguments ``draw(rng)`` builds from a NumPy generator
        seeded from this test's seed, labelled ``"random case 3 of 8"``; then as
        :meth:`cases`. The reference runs on the same draws; with
        ``@test(..., per_learner=True)`` each learner gets draws of their own. Every case
        is drawn before any runs, so what learner code does to the global random state
        cannot change the inputs. Draw from ``rng`` (modules built in ``draw`` take their
        weights from torch's generator, seeded alike for the reference and the submission).

        Examples
        --------
        >>> return t.random_cases(
        ...     8,
        ...     lambda rng: [int(i) for i in rng.choice(6, size=2, replace=False)],
        ...     lambda keep: {"saved": t.call("checkpoint_forward", layers, x, keep)[1]},
        ... )
        """
        if type(count) is not int or not 1 <= count <= 1000:
            raise ValueError(f"random_cases needs a count from 1 to 1000, not {count!r}")
        # A stream of its own per table: two tables in one test draw different cases.
        rng = np.random.default_rng([self.seed, self.draws])
        self.draws += 1
        table = [(f"{name} {i} of {count}", draw(rng)) for i in range(1, count + 1)]
        return self.cases(table, check)

    def _run_case(
        self,
        label: str,
        args: tuple[Any, ...],
        keywords: tuple[tuple[str, Any], ...],
        check: Callable[..., dict[str, Any]],
    ) -> Any:
        start = len(self.log)
        self.case = label
        try:
            observed = check(*args, **dict(keywords))
        finally:
            self.case = None
        if type(observed) is not dict:
            raise TypeError(
                f"case {label!r}: the check returned {type(observed).__name__}, "
                "not a dict of observations"
            )
        observed = dict(observed)  # an object of its own, to tie to the case's call
        made = range(start, len(self.log))
        if made:
            # The call the case's observations came from; when they came from several,
            # the case's first call (one call per case is what the docs advise).
            origins = {self._origin(value) for value in observed.values()}
            mine = [i for i in made if i in origins]
            self._came_from(observed, mine[0] if len(mine) == 1 else made[0])
        return observed

    def counting_layers(self, fns: Sequence[Callable[[Any], Any]]) -> list[Callable[[Any], Any]]:
        """Wrap plain functions as layers that count their calls (``layer.calls``, the
        total; ``layer.index``, the position) and report them to active recordings.

        Examples
        --------
        >>> layers = t.counting_layers([lambda a: a * 2, lambda a: a + 1])
        """
        return [_counting_layer(fn, i) for i, fn in enumerate(fns)]

    def counting_modules(self, modules: Any) -> Any:
        """Make each module of a ``torch.nn.ModuleList`` report its forward calls, however
        they are made (``layer(h)``, ``layer.forward(h)``, through a checkpoint).

        The modules stay ordinary modules (parameters, ``.grad``, hooks all work).

        Examples
        --------
        >>> layers = t.counting_modules(nn.ModuleList(nn.Linear(4, 4) for _ in range(6)))
        """
        for i, module in enumerate(modules):
            module.forward = _counting_forward(module, i)
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
        calls = start_recording(phase)
        try:
            yield calls
        finally:
            stop_recording(calls)
            # The call made inside the block, or else the one the block goes on with
            # (a backward pass through what the last call returned).
            if self.log:
                self._came_from(calls, len(self.log) - 1)

    @contextlib.contextmanager
    def kept_for_backward(self, parameters_of: Any = None) -> Iterator[Kept]:
        """Measure the bytes of the activations autograd keeps for backward in the block.

        Inside a ``torch.utils.checkpoint`` region the checkpoint's own hooks take over
        and nothing is counted, which is the point of checkpointing: the observation is
        the activation memory held outside checkpointed regions (a checkpoint keeps its
        inputs there). Storage shared by several saved tensors counts once; the
        parameters of ``parameters_of`` (a module) do not count, however a solution
        hands them to autograd.

        It is seen twice and counted once: through saved-tensor hooks of the harness
        while the block runs, and, when it ends, in the graph of what the block's calls
        returned (``memory.kept_by_graph``), where the learner's own saved-tensor hooks,
        which take over from the harness's, cannot hide it.

        Examples
        --------
        >>> with t.kept_for_backward(layers) as kept:
        ...     out = t.call("forward_with_checkpointing", layers, x, 2)
        >>> return {"bytes kept for backward outside checkpoints": kept}
        """
        exclude = set()
        if parameters_of is not None:
            exclude = {p.untyped_storage().data_ptr() for p in parameters_of.parameters()}
        kept, pack = start_keeping(frozenset(exclude))
        calls: list[tuple[Any, Any]] = []
        self.watching.append(calls)
        try:
            with torch.autograd.graph.saved_tensors_hooks(pack, _identity):
                yield kept
        finally:
            self.watching[:] = [w for w in self.watching if w is not calls]
        add_kept(kept, *kept_by_graph(calls, self.namespace, _identity))

    @contextlib.contextmanager
    def held_in_python(self) -> Iterator[Kept]:
        """Measure the bytes of NumPy arrays and other Python objects made in the block
        and still held when it ends, wherever they are kept (``ctx``, a global, a
        closure): what no torch storage shows, such as ``ctx.a = a.numpy().copy()``.

        NumPy's buffers count exactly; Python's other allocations (lists, bytes,
        objects) only once they reach ``memory.PYTHON_FLOOR`` (32 KiB) together, since any
        call leaves a few KiB behind. Measured with ``tracemalloc``: a block that runs
        under it is slower, so keep it to the calls that need it.

        Examples
        --------
        >>> with t.held_in_python() as held:
        ...     y = t.call("mlp_block", x, w1, b1, w2, b2)
        >>> return {"bytes of NumPy arrays and Python objects still held": held}
        """
        held, _ = start_keeping(frozenset())
        started, sentinel = start_tracing()
        try:
            yield held
        finally:
            found = held_since(started, sentinel)
        if isinstance(found, str):
            add_kept(held, {}, found)
        else:
            add_kept(held, {0: found}, None)

    def keys(self, mapping: Any) -> Any:
        """The sorted keys of a dict, or the value itself when it is not a dict.

        Examples
        --------
        >>> return {"saved keys": t.keys(saved)}
        """
        if not issubclass(type(mapping), dict):
            return mapping
        keys = list(dict.keys(mapping))  # the dict's own keys, whatever its subclass says
        with contextlib.suppress(TypeError):
            keys = sorted(keys)
        self._inherit(keys, mapping)
        return keys

    @staticmethod
    def grads(module: Any) -> dict[str, Any]:
        """``{parameter name: .grad}`` of a module after a backward (None where unset).

        Examples
        --------
        >>> out.sum().backward()
        >>> return {"parameter gradients": t.grads(layers)}
        """
        return {name: p.grad for name, p in module.named_parameters()}

    def values(self, x: Any) -> Any:
        """A tensor's values as a NumPy array, to compare values but not autograd flags."""
        if torch is not None and isinstance(x, torch.Tensor):
            values = x.detach().cpu().numpy().copy()
            self._inherit(values, x)
            return values
        return x


CallDescription = tuple[str, list[tuple[str, bool]], dict[str, tuple[str, bool]], str | None]
MAX_LABEL = 100


def case_key(label: str) -> str:
    """The observation key of a case: the server knows a case by this form
    (graders.grading.compare.case_label) and words its failures after it."""
    return f"case {label!r}"


class Case(tuple[Any, ...]):
    """One case of a table of cases (:meth:`Scenario.cases`): a label and the arguments
    ``check`` is called with, by name.

    Immutable: a tuple of the label and the ``(name, value)`` pairs of the arguments,
    which the harness reads through tuple's own methods, and an immutable type like the
    harness's other classes.

    Examples
    --------
    >>> Case("six layers, from checkpoint 3", layers=layers, indices=[1, 3], k=5)
    """

    __slots__ = ()

    def __new__(cls, label: str, /, **arguments: Any) -> Case:
        _check_label(label)
        return tuple.__new__(cls, (label, tuple(arguments.items())))

    @property
    def label(self) -> str:
        return str(tuple.__getitem__(self, 0))

    @property
    def arguments(self) -> dict[str, Any]:
        """The arguments by name (a new dict: changing it changes no case)."""
        return dict(tuple.__getitem__(self, 1))

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, Any]]:
        return (self.label,), self.arguments

    def __repr__(self) -> str:
        named = "".join(f", {k}={v!r}" for k, v in tuple.__getitem__(self, 1))
        return f"Case({self.label!r}{named})"


def _check_label(label: Any) -> None:
    if type(label) is not str or not label.strip():
        raise TypeError(f"a case's label must be a non-empty string, not {label!r:.80}")
    if len(label) > MAX_LABEL or "\n" in label or "\r" in label:
        raise ValueError(
            f"the case label {label[:40]!r}… is too long or spans lines: a label is one "
            f"line of at most {MAX_LABEL} characters"
        )


CaseRow = tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...]]


def _case_table(table: Any) -> list[CaseRow]:
    """The (label, positional arguments, named arguments) of each case of a table,
    checked. Case items are read through tuple's own methods, not through their class."""
    if type(table) is Case:
        raise TypeError(
            "t.cases takes a list of cases, not one Case: t.cases([Case(...), ...], check)"
        )
    items = list(table.items()) if isinstance(table, Mapping) else list(table)
    if not items:
        raise ValueError("a table of cases needs at least one case")
    named = [type(item) is Case for item in items]
    if any(named) and not all(named):
        other = items[named.index(False)]
        raise TypeError(
            "a table of cases is either Case(...) items or (label, arguments) pairs, not "
            f"both; got the item {other!r:.80} among Case items"
        )
    rows: list[CaseRow] = []
    seen: set[str] = set()
    for item in items:
        if type(item) is Case:
            label, keywords = tuple.__getitem__(item, 0), tuple.__getitem__(item, 1)
            rows.append((label, (), keywords))
        elif type(item) is not tuple or len(item) != 2:
            raise TypeError(
                f"a table of cases is Case(...) items, a dict {{label: arguments}} or "
                f"(label, arguments) pairs; got the item {item!r:.80}"
            )
        else:
            label, args = item
            if type(args) is Case:
                raise TypeError(
                    f"case {label!r:.80}: its arguments are a Case, which has a label of its "
                    "own; give a list of Case items: t.cases([Case(...), ...], check)"
                )
            rows.append((label, args if type(args) is tuple else (args,), ()))
        _check_label(label)
        if label in seen:
            raise ValueError(f"two cases are labelled {label!r}; labels must be unique")
        seen.add(label)
    return rows


_SCALARS = (bool, int, float, str, type(None))


def describe_argument(value: Any) -> tuple[str, bool]:
    """How a test's argument reads in a failure message: ``("[4, 1]", True)`` for a short
    value shown as it is, ``("8 layers", False)`` for one the server names by its
    parameter (``layers``). Arguments are the test's own values, never learner objects."""
    t = type(value)
    if t in _SCALARS:
        text = repr(value)
        return (text, True) if len(text) <= 40 else (f"a {t.__name__}", False)
    if t is range:
        return repr(value), True
    if t is list or t is tuple:
        items = list(value)
        if items and all(callable(v) for v in items):
            return f"{len(items)} layers", False
        if len(items) <= 8 and all(type(v) in _SCALARS for v in items):
            text = repr(value)
            if len(text) <= 60:
                return text, True
        return f"a {t.__name__} of {len(items)} items", False
    if t is dict:
        return f"a dict with {len(value)} keys", False
    if t is np.ndarray:
        return f"an array of shape {value.shape}", False
    if torch is not None and isinstance(value, torch.nn.ModuleList | torch.nn.Sequential):
        return f"{len(value)} layers", False
    if torch is not None and t is torch.Tensor:
        return f"a tensor of shape {tuple(value.shape)}", False
    return f"a {t.__name__}", False


_type_name = type.__dict__["__name__"].__get__  # past any metaclass property


def describe_result(value: Any) -> str:
    """What learner code returned, in words, for a test that could not use it. Reads
    nothing but the exact type and builtin lengths: no learner method runs."""
    t = type(value)
    if value is None:
        return "None"
    if t is tuple or t is list:
        return f"a {t.__name__} of {len(value)} item{'' if len(value) == 1 else 's'}"
    if t is dict:
        return f"a dict with {len(value)} key{'' if len(value) == 1 else 's'}"
    if t is np.ndarray:
        return f"an array of shape {value.shape}"
    if torch is not None and t is torch.Tensor:
        return f"a tensor of shape {tuple(value.shape)}"
    if t in (bool, int, float, str):
        return f"a {t.__name__}"
    return f"an object of type {_type_name(t)[:100]}"


def _copy_in(value: Any) -> Any:
    t = type(value)
    if t is np.ndarray:
        return value.copy()
    if torch is not None and t is torch.Tensor:
        # Under the test's grad mode a clone of a tensor that requires grad would not,
        # inside no_grad: the learner must get what the original is, graph included.
        with torch.enable_grad():
            return value.clone()
    if t is list or t is tuple:
        return t(_copy_in(v) for v in value)
    if t is dict:
        return {k: _copy_in(v) for k, v in value.items()}
    return value
