"""Guards against cheap forgeries from inside the child that runs learner code.

Learner code shares its process with the harness, so nothing here is a wall: a learner
who reverse-engineers the harness can still reach its objects through the garbage
collector, closures or ctypes (docs/security.md, "Threat model"). What this module does
is make every cheap route fail, and fail loudly:

- the harness's classes are *immutable types*: ``Scenario.recording = fake`` raises
  ``TypeError`` like assigning to an attribute of ``int`` does;
- while learner code runs, the harness's modules are out of ``sys.modules`` and its
  folder is off ``sys.path``, so ``import graders.sandbox.testing`` finds nothing to patch;
- the namespaces the tests rely on (the harness's modules, the tests module, builtins
  and the numpy and torch functions and classes tests call) are compared with a snapshot
  after every call of learner code and before a test's observations are encoded; any
  change ends the run with an error that names what changed.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import gc
import operator
import sys
import types
from collections.abc import Iterator
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
        # (name, dict, exact, keys, values, version): an exact namespace is compared whole
        # (nothing may be added, replaced or removed); a library's must keep its existing
        # functions and classes (additions are fine: torch adds submodules as they are
        # first imported, and libraries update their plain data).
        self._entries: list[list[Any]] = []

    def exact(self, name: str, namespace: Any) -> None:
        self._add(name, namespace, True)

    def kept(self, name: str, namespace: Any) -> None:
        self._add(name, namespace, False)

    def _add(self, name: str, namespace: Any, exact: bool) -> None:
        d = _real_dict(namespace)
        items = [(k, v) for k, v in d.items() if exact or _guarded(v)]
        keys, values = [k for k, _ in items], [v for _, v in items]
        self._entries.append([name, d, exact, keys, values, _version(d)])

    def changed(self) -> str | None:
        for entry in self._entries:
            name, d, exact, keys, values, version = entry
            if version is not None and _version(d) == version:
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
            entry[5] = _version(d)  # modified, but nothing the tests rely on
        return None


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


def _version(d: dict[str, Any]) -> int | None:
    if not _VERSIONS:
        return None
    return int(ctypes.c_uint64.from_address(id(d) + _VERSION_OFFSET).value)


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
