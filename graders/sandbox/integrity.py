"""Guards against cheap forgeries from inside the child that runs learner code.

Learner code shares its process with the harness, so nothing here is a wall: a learner
who reverse-engineers the harness can still reach its objects through the garbage
collector, closures or ctypes (docs/security.md, "Threat model"). What this module does
is make every cheap route fail, and fail loudly:

- the harness's classes are *immutable types*: ``Scenario.call = fake`` raises
  ``TypeError`` like assigning to an attribute of ``int`` does;
- while learner code runs, the harness's modules are out of ``sys.modules`` and its
  folder is off ``sys.path``, so ``import graders.sandbox.testing`` finds nothing to patch;
- the namespaces the tests rely on (the harness's modules, the tests module, builtins
  and the numpy and torch functions and classes tests call) are compared with a snapshot
  after every call of learner code and before a test's observations are encoded, and so
  are the code, defaults and closure cells of the Python functions they hold (a function
  object is mutable even where its class is frozen); any change ends the run with an
  error that names what changed.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import gc
import operator
import sys
import types
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

_IMMUTABLE = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE (CPython 3.10+)
_FLAGS_OFFSET = 21 * ctypes.sizeof(ctypes.c_void_p)  # tp_flags in PyTypeObject


class Tampered(BaseException):
    """Learner code changed something the tests rely on. A BaseException, so that a
    learner's ``except Exception`` around a call cannot swallow it."""


def freeze_type(cls: type) -> bool:
    """Make ``cls`` an immutable type (no attribute can be set or deleted on it).

    CPython offers this flag to C types only; it is set here through the type object's
    ``tp_flags``, found by its value (``cls.__flags__``) so a layout change cannot make
    this write elsewhere. Returns False, changing nothing, where that is not possible."""
    if sys.implementation.name != "cpython":
        return False
    slot = ctypes.c_ulong.from_address(id(cls) + _FLAGS_OFFSET)
    if slot.value != cls.__flags__:
        return False
    slot.value = cls.__flags__ | _IMMUTABLE
    return bool(cls.__flags__ & _IMMUTABLE)


def _guarded(value: Any) -> bool:
    """Values of a library namespace whose replacement would change what a test sees:
    functions, classes and descriptors, not plain data (which libraries update)."""
    return callable(value) or isinstance(
        value, property | classmethod | staticmethod | types.GetSetDescriptorType
    )


class Snapshot:
    """What the tests rely on, taken before learner code loads; ``changed()`` says what
    differs now.

    Comparing thousands of entries after every call would cost a job milliseconds, so a
    namespace is compared only when its dict's version tag (PEP 509: CPython gives a dict
    a new tag whenever it is modified) differs from the one last seen."""

    def __init__(self) -> None:
        # (name, dict, exact, keys, values, version tag, its value then): an exact
        # namespace is compared whole
        # (nothing may be added, replaced or removed); a library's must keep its existing
        # functions and classes (additions are fine: torch adds submodules as they are
        # first imported, and libraries update their plain data).
        self._entries: list[list[Any]] = []
        self._functions = Functions()

    def exact(self, name: str, namespace: Any, *, functions: bool = True) -> None:
        """Watch the namespace whole; and its functions unless ``functions`` is False
        (another snapshot, made once per process, watches them: :meth:`functions_of`)."""
        self._add(name, namespace, True, functions)

    def functions_of(self, name: str, namespace: Any) -> None:
        """Watch only the functions of the namespace (and of its classes)."""
        for key, value in list(_real_dict(namespace).items()):
            for member, function in _functions_of(f"{name}.{key}", value):
                self._functions.add(member, function)

    def kept(self, name: str, namespace: Any) -> None:
        self._add(name, namespace, False)

    def _add(self, name: str, namespace: Any, exact: bool, functions: bool = True) -> None:
        d = _real_dict(namespace)
        items = [(k, v) for k, v in d.items() if exact or _guarded(v)]
        keys, values = [k for k, _ in items], [v for _, v in items]
        tag = _version_tag(d)
        self._entries.append([name, d, exact, keys, values, tag, tag and tag.value])
        for key, value in items if functions else ():
            for member, function in _functions_of(f"{name}.{key}", value):
                self._functions.add(member, function)

    def functions(self) -> list[types.FunctionType]:
        """The Python functions this snapshot found in its namespaces."""
        return [function for _, function, *_ in self._functions._each]

    def changed(self) -> str | None:
        for entry in self._entries:
            name, d, exact, keys, values, tag, version = entry
            if tag is not None and tag.value == version:
                continue
            if exact and len(d) != len(keys):
                # Python itself adds __warningregistry__ to a module from whose code a
                # warning is issued, even an ignored one (a learner's unclosed file freed
                # while a harness function runs): no tampering.
                added = sorted(set(d) - set(keys) - {"__warningregistry__"}, key=str)
                if added:
                    return f"{name}.{added[0]} was added"
            now = list(map(d.get, keys))
            if not all(map(operator.is_, now, values)):
                key = next(k for k, a, b in zip(keys, now, values, strict=True) if a is not b)
                return f"{name}.{key} was replaced"
            entry[6] = tag and tag.value  # modified, but nothing the tests rely on
        return self._functions.changed()


class Functions:
    """The Python functions a snapshot's namespaces hold, with what each runs.

    A function object is mutable: ``f.__code__ = g.__code__`` swaps what it runs, and so
    do new default arguments, a keyword default changed in place, or a new value in a
    closure's cell (``contextmanager`` keeps the generator function it wraps in one).
    None of that changes a dict, so no version tag shows it. Each check is a few C-level
    passes over flat lists: code objects compare in C (never through learner code),
    defaults, keyword defaults and cell contents by identity. Only the functions that
    had defaults are watched for them: defaults given to a function that had none change
    no call the harness makes with every argument.

    The code and defaults of a function :func:`refuse_function_changes` covers are not
    compared (the warm worker's harness and libraries, about 900 functions): no
    assignment to them can happen. Its cells and keyword defaults still are."""

    def __init__(self) -> None:
        # Per function, for naming what changed: (name, function, code, defaults,
        # kwdefaults, their values, (cell, content) pairs).
        self._each: list[tuple[Any, ...]] = []
        self._all: list[types.FunctionType] = []
        self._codes: list[types.CodeType] = []
        self._with_defaults: list[types.FunctionType] = []
        self._defaults: list[Any] = []
        self._with_kwdefaults: list[types.FunctionType] = []
        self._kwdefaults: list[dict[str, Any]] = []
        self._kw_dicts: list[dict[str, Any]] = []
        self._kw_values: list[Any] = []
        self._cells: list[Any] = []
        self._contents: list[Any] = []

    def add(self, name: str, function: types.FunctionType) -> None:
        code, defaults, kwdefaults = (
            function.__code__,
            function.__defaults__,
            function.__kwdefaults__,
        )
        kw_values = [] if kwdefaults is None else list(dict.values(kwdefaults))
        cells = []
        for cell in function.__closure__ or ():
            with contextlib.suppress(ValueError):  # an empty cell
                cells.append((cell, cell.cell_contents))
        self._each.append((name, function, code, defaults, kwdefaults, kw_values, cells))
        if id(function) not in _REFUSED:  # else the audit hook refuses such changes
            self._all.append(function)
            self._codes.append(code)
            if defaults is not None:
                self._with_defaults.append(function)
                self._defaults.append(defaults)
        if kwdefaults is not None:
            if id(function) not in _REFUSED:
                self._with_kwdefaults.append(function)
                self._kwdefaults.append(kwdefaults)
            # Changed in place, a dict shows no assignment. Its values, not its keys: a
            # default moved to another name leaves a call that needs it failing.
            self._kw_dicts.append(kwdefaults)
            self._kw_values.extend(dict.values(kwdefaults))
        for cell, content in cells:
            self._cells.append(cell)
            self._contents.append(content)

    def changed(self) -> str | None:
        if (
            list(map(_code, self._all)) == self._codes
            and _same(map(_defaults, self._with_defaults), self._defaults)
            and _same(map(_kwdefaults, self._with_kwdefaults), self._kwdefaults)
            and _same(chain.from_iterable(map(dict.values, self._kw_dicts)), self._kw_values)
            and _same(map(_contents, self._cells), self._contents)
        ):
            return None
        return self._which()

    def _which(self) -> str:
        """What changed, by name: the slow path, taken once, as the run ends."""
        for name, function, code, defaults, kwdefaults, kw_values, cells in self._each:
            if function.__code__ is not code:
                return f"the code of {name} was replaced"
            if function.__defaults__ is not defaults or function.__kwdefaults__ is not kwdefaults:
                return f"the default arguments of {name} were replaced"
            if kwdefaults is not None and not _same(dict.values(kwdefaults), kw_values):
                return f"the default arguments of {name} were replaced"
            if not all(_contents(cell) is content for cell, content in cells):
                return f"a value {name} keeps in its closure was replaced"
        return "a function of the grader was changed"  # pragma: no cover


_REFUSED: frozenset[int] = frozenset()  # ids of the functions the audit hook guards


def refuse_function_changes(functions: list[types.FunctionType]) -> None:
    """From now on, in this process and the children it forks, refuse every assignment
    to the ``__code__``, ``__defaults__`` or ``__kwdefaults__`` of these functions.

    CPython raises the audit event ``object.__setattr__`` before it makes such an
    assignment, and an audit hook cannot be removed (short of ctypes, docs/security.md).
    The hook reads nothing that can be changed without an audited assignment: its state
    is its own positional defaults (an immutable tuple, whose replacement it refuses, as
    it watches itself), not globals, a closure cell or a dict. It raises Tampered in the
    code that tried, so the change never happens and the run ends with its name. Called
    once, in the warm worker before any job: each call adds a hook for good."""
    global _REFUSED

    def refuse(
        event: str,
        args: tuple[Any, ...],
        watched: frozenset[int] = frozenset(),
        kept: tuple[types.FunctionType, ...] = (),  # alive: an id is never reused
        error: type[BaseException] = BaseException,
        identity: Any = None,
    ) -> None:
        if event == "object.__setattr__" and identity(args[0]) in watched:
            what = "code" if args[1] == "__code__" else "default arguments"
            raise error(f"the {what} of {args[0].__module__}.{args[0].__qualname__} was replaced")

    guarded = (*functions, refuse)
    refuse.__defaults__ = (frozenset(map(id, guarded)), guarded, Tampered, id)
    sys.addaudithook(refuse)
    _REFUSED = _REFUSED | frozenset(map(id, guarded))


# A function's type holds these as data descriptors, which an instance cannot shadow;
# attrgetter reads them in C.
_code = operator.attrgetter("__code__")
_defaults = operator.attrgetter("__defaults__")
_kwdefaults = operator.attrgetter("__kwdefaults__")
_contents = operator.attrgetter("cell_contents")


def _same(now: Iterable[Any], then: list[Any]) -> bool:
    now = list(now)
    return len(now) == len(then) and all(map(operator.is_, now, then))


def _functions_of(name: str, value: Any) -> Iterator[tuple[str, types.FunctionType]]:
    """The Python functions a namespace's value runs, each with its name: itself and
    what a decorator wraps, a class's own methods, static and class methods and
    properties, or the implementation behind a NumPy function (a C dispatcher whose
    ``_implementation`` is a Python function)."""
    if isinstance(value, type):
        for key, member in list(vars(value).items()):
            if isinstance(member, staticmethod | classmethod):
                member = member.__func__
            if isinstance(member, property):
                for f in (member.fget, member.fset):
                    if type(f) is types.FunctionType:
                        yield f"{name}.{key}", f
            elif type(member) is types.FunctionType:
                yield from _functions_of(f"{name}.{key}", member)
        return
    if type(value) is not types.FunctionType and not isinstance(value, types.ModuleType):
        implementation = getattr(value, "_implementation", None)
        if type(implementation) is types.FunctionType:
            yield from _functions_of(name, implementation)
        return
    seen = 0
    while type(value) is types.FunctionType and seen < 4:
        yield name, value
        value = value.__dict__.get("__wrapped__")  # contextmanager, functools.wraps
        seen += 1


def _real_dict(namespace: Any) -> dict[str, Any]:
    """The dict itself: a class's ``vars()`` is a read-only proxy of it."""
    if isinstance(namespace, dict):
        return namespace
    (inner,) = gc.get_referents(namespace)
    assert isinstance(inner, dict)
    return inner


_VERSION_OFFSET = 3 * ctypes.sizeof(ctypes.c_void_p)  # PyDictObject: refcnt, type, used


def _probe_versions() -> bool:
    """Whether dict version tags can be read here: CPython 3.11's PyDictObject keeps
    ``ma_used`` then ``ma_version_tag``; checked on a probe dict, not assumed."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] != (3, 11):
        return False
    probe: dict[str, int] = {"a": 1}
    used = ctypes.c_ssize_t.from_address(id(probe) + 2 * ctypes.sizeof(ctypes.c_void_p))
    if used.value != 1:
        return False
    before = ctypes.c_uint64.from_address(id(probe) + _VERSION_OFFSET).value
    probe["a"] = 2
    after = ctypes.c_uint64.from_address(id(probe) + _VERSION_OFFSET).value
    return after != before


_VERSIONS = _probe_versions()


def _version_tag(d: dict[str, Any]) -> Any:
    """The dict's version tag, read through one ctypes object made here: making one is
    an audited event (``ctypes.cdata``), reading its value is not."""
    if not _VERSIONS:
        return None
    return ctypes.c_uint64.from_address(id(d) + _VERSION_OFFSET)


_MISSING = object()


def library_snapshot() -> Snapshot:
    """The libraries' part of the snapshot, built once in the warm worker."""
    import numpy as np

    snapshot = Snapshot()
    snapshot.kept("builtins", vars(builtins))
    snapshot.kept("numpy", vars(np))
    try:
        import torch
        from torch import nn
    except ImportError:  # pragma: no cover - torch is a runtime dependency
        return snapshot
    # What turns a learner's run into observations: backward, gradients, saved-tensor
    # hooks and module calls. Not the torch module as a whole: torch itself replaces some
    # of its functions when a submodule is first imported (torch._dynamo wraps
    # torch.manual_seed), and a learner using such a feature must not be refused.
    snapshot.kept("torch.autograd", vars(torch.autograd))
    snapshot.kept("torch.autograd.graph", vars(torch.autograd.graph))
    for cls in (torch.Tensor, nn.Module, nn.ModuleList, nn.Sequential, nn.Linear, nn.Tanh):
        snapshot.kept(f"{cls.__module__}.{cls.__qualname__}", vars(cls))
    return snapshot


@contextlib.contextmanager
def hidden_modules(prefix: str, folder: str | None) -> Iterator[None]:
    """Take the harness's modules out of ``sys.modules`` (and its folder off ``sys.path``)
    for the block, and put them back after it."""
    names = [n for n in sys.modules if n == prefix or n.startswith(prefix + ".")]
    modules = {n: sys.modules.pop(n) for n in names}
    path = list(sys.path)
    if folder is not None:
        sys.path[:] = [p for p in sys.path if p != folder]
    try:
        yield
    finally:
        sys.path[:] = path
        for name in [n for n in sys.modules if n == prefix or n.startswith(prefix + ".")]:
            del sys.modules[name]  # a copy learner code imported is not ours
        sys.modules.update(modules)
