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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from graders.sandbox.records import Calls, Kept
from graders.sandbox.wire import WIRE_DTYPES

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
    tolerances:
        ``(rtol, atol)`` by dtype name, for values of that dtype (``{"float64": (1e-9,
        1e-12), "float32": (1e-4, 1e-5)}``), as an exercise states them; values of the
        other dtypes are compared with ``rtol`` and ``atol``. ``drill validate`` fails a
        test looser than the tolerance its ``exercise.toml`` states.
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
    tolerances: dict[str, tuple[float, float]] | None = None

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
            "tolerances": {k: list(v) for k, v in (self.tolerances or {}).items()},
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
    tolerances: dict[str, tuple[float, float]] | None = None,
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
    options: dict[str, Any] = {"hint": hint, "rtol": rtol, "atol": atol}
    options.update(exact_dtype=exact_dtype, tolerances=tolerances)
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
    tolerances: dict[str, tuple[float, float]] | None = None,
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
    options: dict[str, Any] = {"hint": hint, "rtol": rtol, "atol": atol}
    options.update(exact_dtype=exact_dtype, tolerances=tolerances)
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


class Scenario:
    """What a test function receives as ``t``: the way to call the submission
    (:meth:`call`), tables of cases (:meth:`cases`, :meth:`random_cases`) and a few
    readings of what it returned (:meth:`keys`, :meth:`grads`, :meth:`values`).

    Helpers for one topic's exercises live in a module of their own and take ``t``
    (``graders.sandbox.checkpointing``). The rest is the harness's: ``call_log``,
    ``call_of``, ``last_call`` and ``returned`` are read by the runner to tell the
    learner which call an observation came from."""

    __slots__ = (
        "_after_call",
        "_arguments",
        "_case",
        "_draws",
        "_entry_points",
        "_log",
        "_namespace",
        "_origins",
        "_passed",
        "_watching",
        "last_call",
        "returned",
        "seed",
    )

    def __init__(
        self,
        namespace: dict[str, Any],
        entry_points: Sequence[str],
        seed: int = 0,
        after_call: Callable[[], None] | None = None,
    ) -> None:
        self._namespace = namespace  # the submission's module
        self._entry_points = entry_points
        # The seed random, NumPy and torch were seeded with for this test (the same for
        # the reference and the submission; per learner for a ``per_learner`` test).
        self.seed = seed
        self._after_call = after_call  # after every call of learner code (integrity)
        self.last_call: str | None = None
        self.returned: str | None = None  # what the last call returned (describe_result)
        # Each call made, described for the learner: (entry point, args, kwargs, label of
        # the case it was made in or None), each argument a (text, short) pair.
        self._log: list[CallDescription] = []
        # The arguments of each call, written out as code (argument_code) only for the
        # calls a message shows: most calls pass and are never shown.
        self._arguments: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        self._case: str | None = None  # the label of the case of ``cases`` running now
        self._draws = 0  # tables of random cases drawn so far: each gets its own stream
        # id(object) -> (the object, kept alive; index in the log of the call it came
        # from), so that a failing observation can be shown with the call that made it.
        self._origins: dict[int, tuple[Any, int]] = {}
        # For each measuring block open now (checkpointing.kept_for_backward), the
        # (arguments, result) of each call made in it.
        self._watching: list[list[tuple[Any, Any]]] = []
        # The last call's arguments as the test holds them and the copies its code got.
        self._passed: tuple[tuple[Any, ...], dict[str, Any], Any, Any] | None = None

    @property
    def call_log(self) -> list[CallDescription]:
        """The calls made so far, described for the learner (the runner sends them)."""
        return self._log

    def arguments_code(self, index: int) -> tuple[list[str | None], dict[str, str | None]]:
        """The arguments of call ``index`` of the log as code a learner can paste (None
        for one that cannot be written out)."""
        args, kwargs = self._arguments[index]
        return [_memo(a) for a in args], {k: _memo(v) for k, v in kwargs.items()}

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call entry point ``name`` of the submission with copies of array arguments.

        Arrays are copied; tensors are cloned so that gradients still reach the
        originals. Layers, modules and other objects are passed as they are.

        Examples
        --------
        >>> out, saved = t.call("checkpoint_forward", layers, x, [1, 3])
        """
        if name not in self._entry_points:
            raise ValueError(f"test calls {name!r}, which is not an entry point of this track")
        fn = self._namespace.get(name)
        if not callable(fn):
            raise MissingEntryPoint(name)
        self.last_call = name
        self._log.append(
            (
                name,
                [describe_argument(a) for a in args],
                {k: describe_argument(v) for k, v in kwargs.items()},
                self._case,
            )
        )
        self._arguments.append((args, kwargs))  # written out as code only if shown
        self.returned = None
        copied_args, copied_kwargs = _copy_in(args), _copy_in(kwargs)
        self._passed = (args, kwargs, copied_args, copied_kwargs)
        result = fn(*copied_args, **copied_kwargs)
        for calls in self._watching:
            calls.append(((args, kwargs), result))
        if self._after_call is not None:
            self._after_call()
        self.returned = describe_result(result)
        self._came_from(result, len(self._log) - 1)
        if type(result) is tuple or type(result) is list:
            for item in result[:16]:
                self._came_from(item, len(self._log) - 1)
        return result

    def _came_from(self, value: Any, call: int) -> None:
        if value is not None and type(value) not in (bool, int, float, str):
            self._origins[id(value)] = (value, call)

    def _origin(self, value: Any) -> int | None:
        origin = self._origins.get(id(value))
        return origin[1] if origin is not None and origin[0] is value else None

    def _inherit(self, derived: Any, source: Any) -> None:
        """``derived`` (keys, values) came from the same call as ``source``."""
        call = self._origin(source)
        if call is not None:
            self._came_from(derived, call)

    def _from_last_call(self, value: Any) -> None:
        """``value`` (a record made while or after the last call ran) came from that
        call: for the helper modules' measuring blocks."""
        if self._log:
            self._came_from(value, len(self._log) - 1)

    def call_of(self, value: Any) -> int | None:
        """The index in ``call_log`` of the call an observed value came from: the call that
        returned it (or the tuple it was part of), the call made inside the recording it
        is, the only call of the test; None when that cannot be told."""
        call = self._origin(value)
        if call is not None:
            return call
        return 0 if len(self._log) == 1 else None

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
        if self._case is not None:
            raise ValueError(f"cases cannot be nested: a table of cases inside case {self._case!r}")
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
        rng = np.random.default_rng([self.seed, self._draws])
        self._draws += 1
        table = [(f"{name} {i} of {count}", draw(rng)) for i in range(1, count + 1)]
        return self.cases(table, check)

    def _run_case(
        self,
        label: str,
        args: tuple[Any, ...],
        keywords: tuple[tuple[str, Any], ...],
        check: Callable[..., dict[str, Any]],
    ) -> Any:
        start = len(self._log)
        self._case = label
        try:
            observed = check(*args, **dict(keywords))
        finally:
            self._case = None
        if type(observed) is not dict:
            raise TypeError(
                f"case {label!r}: the check returned {type(observed).__name__}, "
                "not a dict of observations"
            )
        observed = dict(observed)  # an object of its own, to tie to the case's call
        made = range(start, len(self._log))
        if made:
            # The call the case's observations came from; when they came from several,
            # the case's first call (one call per case is what the docs advise).
            origins = {self._origin(value) for value in observed.values()}
            mine = [i for i in made if i in origins]
            self._came_from(observed, mine[0] if len(mine) == 1 else made[0])
        return observed

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

    def changed_in_place(self, *names: str) -> list[str]:
        """The arguments of the last call that its code changed in place, by name.

        The code got copies of the test's arrays and tensors, so the test's own stay as
        they were: each copy, as the call left it, is compared with the test's (shape,
        dtype, values; NaN equals NaN). ``names`` name the positional arguments in order;
        a keyword argument is named by its keyword. Arguments passed as they are (modules,
        parameters, other objects) cannot be told apart from the test's and never count.

        Examples
        --------
        >>> loss, grad = t.call("cross_entropy", logits, targets)
        >>> return {"changed in place": t.changed_in_place("logits", "targets")}
        """
        if self._passed is None:
            raise ValueError("changed_in_place() reads the last call: make one first")
        args, kwargs, copied_args, copied_kwargs = self._passed
        if len(names) != len(args):
            raise ValueError(f"changed_in_place() needs one name for each of {len(args)} arguments")
        named = [
            *zip(names, args, copied_args, strict=True),
            *((k, kwargs[k], copied_kwargs[k]) for k in kwargs),
        ]
        changed = [name for name, held, got in named if got is not held and _changed(held, got)]
        if self._log:
            self._came_from(changed, len(self._log) - 1)
        return changed

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

# How long the code of one argument may be, and how many elements an array shown as code
# may hold: beyond that the message names its shape and dtype only.
MAX_CODE = 600
MAX_CODE_ELEMENTS = 24


def _code_registry() -> tuple[Callable[[Any, str], Any], Callable[[Any], str | None]]:
    """Code a test author gives for a value the harness cannot write out (layers: what
    each one does). Held in a closure, not in a module attribute the integrity snapshot
    watches; the value itself is kept so that its id stays its own."""
    given: dict[int, tuple[Any, str]] = {}

    def shown_as(value: Any, code: str) -> Any:
        if type(code) is not str or "\n" in code:
            raise TypeError("the code a value is shown as is one line of text")
        given[id(value)] = (value, code)
        return value

    def code_given(value: Any) -> str | None:
        found = given.get(id(value))
        return found[1] if found is not None and found[0] is value else None

    return shown_as, code_given


shown_as, _code_given = _code_registry()
shown_as.__doc__ = """Show ``value`` in a failing call as ``code`` (one line of Python a learner
can paste), where the harness cannot write it out: ``shown_as(layers, "[lambda a: a * 2]")``.
Returns ``value``. ``counting_layers`` and ``counting_modules`` take it as ``code=``."""


def from_code(code: str, namespace: dict[str, Any]) -> Any:
    """The value of ``code`` (one line of Python, evaluated in ``namespace``, the tests
    module's ``globals()``), shown as that code in a failing call: what a learner reads
    is what the test runs.

    Examples
    --------
    >>> LAYERS = from_code("[lambda a: a * 2.0, np.tanh]", globals())
    """
    # The test author's own line, run in the sandbox like the rest of tests.py.
    return shown_as(eval(code, namespace), code)  # noqa: S307


def _code_memo() -> Callable[[Any], str | None]:
    """argument_code, once per object: the same layers and input recur in many calls.
    (A job runs in a process of its own, so the memo lives as long as the job.)"""
    seen: dict[int, tuple[Any, str | None]] = {}

    def memo(value: Any) -> str | None:
        found = seen.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        code = argument_code(value)
        if not any(type(value) is s for s in _SCALARS):
            seen[id(value)] = (value, code)
        return code

    return memo


def argument_code(value: Any) -> str | None:
    """``value`` as one line of Python a learner can paste to call their code on the
    failing case themselves, or None when it is too large or of a kind not written out:
    an array or a tensor of up to 24 elements with its dtype, a short list or dict of
    such values, or the code a test author gave for it (``shown_as``). Display only."""
    code = _code_given(value)
    if code is None:
        code = _code(value, depth=0)
    return code if code is not None and len(code) <= MAX_CODE else None


def _code(value: Any, depth: int) -> str | None:
    # Only exact types, compared by identity, and only methods read from the class: an
    # argument may be an object learner code has held (a module, or what it returned).
    t = type(value)
    if any(t is s for s in _SCALARS):
        return repr(value)
    if t is np.ndarray:
        known = WIRE_DTYPES.get(value.dtype)
        if value.size > MAX_CODE_ELEMENTS or known is None or value.dtype.kind not in "biuf":
            return None
        return f"np.array({np.ndarray.tolist(value)!r}, dtype=np.{known[0]})"
    if torch is not None and t is torch.Tensor:
        if torch.Tensor.numel(value) > MAX_CODE_ELEMENTS:
            return None
        if value.is_sparse or value.device.type != "cpu":
            return None
        if value.dtype.is_complex or value.dtype == torch.bfloat16:
            return None
        grad = ", requires_grad=True" if value.requires_grad else ""
        data = torch.Tensor.tolist(torch.Tensor.detach(value))
        return f"torch.tensor({data!r}, dtype={value.dtype}{grad})"
    given = _code_given(value)
    if given is not None:
        return given
    if torch is not None and issubclass(t, torch.nn.Module):
        return _module_code(value, depth)
    if depth >= 2:
        return None
    if (t is list or t is tuple) and len(value) <= 12:
        items = [_code(v, depth + 1) for v in value]
        if any(i is None for i in items):
            return None
        inner = ", ".join(items)  # type: ignore[arg-type]
        return f"[{inner}]" if t is list else f"({inner}{',' if len(items) == 1 else ''})"
    if t is dict and len(value) <= 12:
        pairs = [(_code(k, depth + 1), _code(v, depth + 1)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    return None


_memo = _code_memo()


def _module_code(module: Any, depth: int) -> str | None:
    """A module of torch.nn as the call that builds it (``nn.Linear(4, 4)``; its weights
    are drawn at random), a ModuleList or a Sequential of such modules as a list of them;
    None for a module of another kind.

    Modules reach learner code as they are, and this runs after it: it calls no method of
    the module and formats none of its attributes but plain ints, floats and bools read
    from its ``__dict__``, and it knows a class only by identity (a swapped ``__class__``
    or an ``extra_repr`` set on the instance must not run learner code here)."""
    kind = type(module)
    state = object.__getattribute__(module, "__dict__")
    if type(state) is not dict or depth > 3:
        return None
    children = dict.get(state, "_modules")
    if type(children) is not dict:
        return None
    if kind is torch.nn.ModuleList or kind is torch.nn.Sequential:
        items = [_module_code(m, depth + 1) for m in list(dict.values(children))]
        if any(i is None for i in items):
            return None
        inner = ", ".join(items)  # type: ignore[arg-type]
        return (
            f"nn.ModuleList([{inner}])"
            if kind is torch.nn.ModuleList
            else f"nn.Sequential({inner})"
        )
    if children:
        return None
    if kind is torch.nn.Linear:
        sizes = dict.get(state, "in_features"), dict.get(state, "out_features")
        parameters = dict.get(state, "_parameters")
        if not all(type(n) is int for n in sizes) or type(parameters) is not dict:
            return None
        bias = "" if dict.get(parameters, "bias") is not None else ", bias=False"
        return f"nn.Linear({sizes[0]}, {sizes[1]}{bias})"
    if kind is torch.nn.Dropout:
        p = dict.get(state, "p")
        return f"nn.Dropout({p!r})" if type(p) is float or type(p) is int else None
    for plain in _PLAIN_MODULES:
        if kind is plain:
            return f"nn.{plain.__name__}()"
    return None


_PLAIN_MODULES = (
    (torch.nn.Tanh, torch.nn.ReLU, torch.nn.Sigmoid, torch.nn.Identity) if torch is not None else ()
)


def describe_argument(value: Any) -> tuple[str, bool]:
    """How a test's argument reads in a failure message: ``("[4, 1]", True)`` for a short
    value shown as it is, ``("a list of 8 functions", False)`` for one the server names
    by its parameter (``layers``). Arguments are the test's own values, never learner objects."""
    t = type(value)
    if t in _SCALARS:
        text = repr(value)
        return (text, True) if len(text) <= 40 else (f"a {t.__name__}", False)
    if t is range:
        return repr(value), True
    if t is list or t is tuple:
        items = list(value)
        if items and all(callable(v) for v in items):
            return f"a {t.__name__} of {len(items)} functions", False
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
        return f"a {t.__name__} of {len(value)} modules", False
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


def _changed(held: Any, got: Any) -> bool:
    """Whether ``got``, a copy of ``held`` made by _copy_in, no longer equals it."""
    t = type(held)
    if t is np.ndarray:
        return (
            type(got) is not np.ndarray
            or got.shape != held.shape
            or got.dtype != held.dtype
            or not _array_equal(got, held, equal_nan=held.dtype.kind in "fc")
        )
    if torch is not None and t is torch.Tensor:
        if type(got) is not torch.Tensor or got.shape != held.shape or got.dtype != held.dtype:
            return True
        a, b = got.detach(), held.detach()
        if a.is_floating_point():  # NaN equals NaN: compare where they are, then the rest
            nan = a.isnan()
            if not _tensor_equal(nan, b.isnan()):
                return True
            a, b = a.masked_fill(nan, 0), b.masked_fill(nan, 0)
        return not _tensor_equal(a, b)
    if t is list or t is tuple:
        return type(got) is not t or len(got) != len(held) or any(map(_changed, held, got))
    if t is dict:
        return (
            type(got) is not dict
            or list(got) != list(held)
            or any(_changed(held[k], got[k]) for k in held)
        )
    return False


# Bound when the harness loads, before any learner code can replace them.
_array_equal = np.array_equal
_tensor_equal: Any = torch.equal if torch is not None else None


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
