"""What a call leaves held in memory, observed where learner code cannot blind it.

Two observations back the saved-tensor hooks of ``checkpointing.kept_for_backward``, which a
learner's own pair of hooks, pushed inside the call, takes over (hooks are a stack, and
only the innermost pair packs what autograd saves):

- :func:`kept_by_graph` reads the graph itself: the saved variables of every node
  reachable from what the calls returned (through ``next_functions``, a custom Function's
  ``ctx`` attributes and what its methods' closures and named globals hold, and the hooks
  on the results), without unpacking any. A saved
  variable packed by no hook holds its tensor; one packed by ``torch.utils.checkpoint``
  holds nothing until backward rebuilds it (the point of checkpointing); one packed by
  any other hook holds whatever its packed value and its unpack hook refer to, counted in
  full (tensors, NumPy arrays, bytes).
- :func:`start_tracing` and :func:`held_since` use ``tracemalloc``, which sees NumPy's
  buffers (in a domain of their own) and every Python allocation: what a block allocated
  and still holds at its end, where no torch storage is involved (``a.numpy().copy()``
  kept on ``ctx``, in a global or in a closure).

Everything is read through C-level accessors bound when the harness loads (descriptors,
``gc.get_referents``), never through a method a learner's class could override.
"""

from __future__ import annotations

import _tracemalloc
import array
import gc
import types
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

try:
    import torch
    import torch.utils.checkpoint as _checkpoint
except ImportError:  # pragma: no cover - torch is a runtime dependency
    torch = None  # type: ignore[assignment]

# At most this many objects are visited in one observation; past it the observation is
# "not measurable", which never matches a reference.
MAX_OBJECTS = 50_000
# Python memory (not NumPy's) below this many bytes is not counted by held_since: any call
# leaves a few KiB behind (the graph's Python objects, the interpreter's caches).
PYTHON_FLOOR = 32 * 1024
NUMPY_DOMAIN = int(np.lib.tracemalloc_domain)

# Storage addresses and sizes found: {address: bytes}.
Found = dict[int, int]

_get_referents = gc.get_referents
_collect = gc.collect
_nd_base = np.ndarray.__dict__["base"].__get__
_nd_nbytes = np.ndarray.__dict__["nbytes"].__get__
_nd_interface = np.ndarray.__dict__["__array_interface__"].__get__
_fn_closure = types.FunctionType.__dict__["__closure__"].__get__
_fn_defaults = types.FunctionType.__dict__["__defaults__"].__get__
_fn_kwdefaults = types.FunctionType.__dict__["__kwdefaults__"].__get__
_fn_globals = types.FunctionType.__dict__["__globals__"].__get__
_fn_code = types.FunctionType.__dict__["__code__"].__get__
_tm_start = _tracemalloc.start
_tm_stop = _tracemalloc.stop
_tm_is_tracing = _tracemalloc.is_tracing
_tm_clear = _tracemalloc.clear_traces
_tm_traces = _tracemalloc._get_traces
_tm_traceback_of = _tracemalloc._get_object_traceback

# Leaves: nothing of interest is reachable from them, or nothing a walk should enter.
_SKIP = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    type,
    types.ModuleType,
    types.CodeType,
    types.BuiltinFunctionType,
    types.MethodWrapperType,
    types.WrapperDescriptorType,
    types.MethodDescriptorType,
    types.GetSetDescriptorType,
    types.MemberDescriptorType,
    types.FrameType,
    types.GeneratorType,
    types.CoroutineType,
)

if torch is not None:
    _BASE = torch._C.TensorBase
    _grad_fn = _BASE.__dict__["grad_fn"].__get__
    _tensor_hooks = _BASE.__dict__["_backward_hooks"].__get__
    _untyped_storage = torch.Tensor.untyped_storage
    _data_ptr = torch.UntypedStorage.data_ptr
    _nbytes = torch.UntypedStorage.nbytes
    _no_torch_function = torch._C.DisableTorchFunction
    _SAVED = torch._C._autograd.SavedTensor
    _saved_data = _SAVED.__dict__["data"].fget
    _saved_unpack_hook = _SAVED.__dict__["unpack_hook"].fget
    _FUNCTION_BASE = torch._C._FunctionBase
    _custom_saved = _FUNCTION_BASE.__dict__["_raw_saved_tensors"].__get__
    _custom_next = _FUNCTION_BASE.__dict__["next_functions"].__get__
    # The unpack hooks of torch.utils.checkpoint (non-reentrant): what they pack is a
    # placeholder that backward fills by running the segment again.
    _CHECKPOINT_UNPACK = frozenset(
        code
        for code in _checkpoint._checkpoint_hook.__init__.__code__.co_consts
        if isinstance(code, types.CodeType) and code.co_name.startswith("unpack_hook")
    )
    _CHECKPOINT_HOLDER = _checkpoint._Holder
    _CHECKPOINT_FRAME = _checkpoint._CheckpointFrame

# A custom Function's node: what ctx.save_for_backward kept, read through _FunctionBase.
CUSTOM = ("save_for_backward",)
# type -> the names of its saved-variable attributes, CUSTOM, or None (not a node)
_NODE_TYPES: dict[type, tuple[str, ...] | None] = {}


def _node_fields(t: type) -> tuple[str, ...] | None:
    """The ``_raw_saved_*`` attributes of an autograd node type (the C++ nodes of torch's
    own operations; ``()`` for one that saves nothing), :data:`CUSTOM` for a custom
    Function's node, None for anything else."""
    if t in _NODE_TYPES:
        return _NODE_TYPES[t]
    fields: tuple[str, ...] | None = None
    if issubclass(t, _FUNCTION_BASE):
        fields = CUSTOM
    elif type(t.__dict__.get("next_functions")) is types.GetSetDescriptorType:
        fields = tuple(sorted(n for n in t.__dict__ if n.startswith("_raw_saved_")))
    _NODE_TYPES[t] = fields
    return fields


class _Reach:
    """A bounded walk over what objects refer to: the tensors, NumPy arrays, bytes and
    autograd nodes reachable from them. It reads only through C-level accessors: no
    method of a learner's class runs. A function is entered through its closure, its
    defaults and, when it is the submission's, the globals its code names."""

    def __init__(self, namespace: dict[str, Any] | None, budget: list[int]) -> None:
        self.namespace = namespace
        self.budget = budget  # shared by the walks of one observation: [objects left]
        self.seen: set[int] = set()
        self.alive: list[Any] = []  # what was seen, so that no id is reused meanwhile
        self.tensors: list[Any] = []
        self.arrays: list[Any] = []
        self.buffers: list[Any] = []
        self.nodes: list[Any] = []

    def walk(self, roots: Iterable[Any]) -> None:
        stack = list(roots)
        while stack:
            obj = stack.pop()
            if id(obj) in self.seen:
                continue
            t = type(obj)
            if issubclass(t, _SKIP):
                continue
            self.seen.add(id(obj))
            self.alive.append(obj)
            self.budget[0] -= 1
            if self.budget[0] < 0:
                return
            stack.extend(self._inside(obj, t))

    def _inside(self, obj: Any, t: type) -> Iterable[Any]:
        if torch is not None and issubclass(t, _BASE):
            self.tensors.append(obj)
            return ()  # its storage is what it holds; its graph is read as a node's
        if issubclass(t, np.ndarray):
            self.arrays.append(obj)
            base = _nd_base(obj)
            return () if base is None else (base,)
        if t is bytes or t is bytearray or t is array.array:
            self.buffers.append(obj)
            return ()
        if t is memoryview:
            return (obj.obj,)
        if torch is not None and _node_fields(t) is not None:
            self.nodes.append(obj)
            return ()
        if t is types.FunctionType:
            return self._function(obj)
        if t is types.CellType:
            try:
                return (obj.cell_contents,)
            except ValueError:  # an empty cell
                return ()
        if t is types.MethodType:
            return (obj.__self__, obj.__func__)
        # Containers, functools.partial, instances (their __dict__ and slots), ...
        return [r for r in _get_referents(obj) if type(r) is not type]

    def _function(self, fn: types.FunctionType) -> list[Any]:
        inside: list[Any] = [_fn_closure(fn), _fn_defaults(fn), _fn_kwdefaults(fn)]
        namespace = _fn_globals(fn)
        if self.namespace is not None and namespace is self.namespace:
            names: list[str] = []
            _names_of(_fn_code(fn), names)
            inside.extend(namespace[n] for n in names if n in namespace)
        return inside


def _names_of(code: types.CodeType, names: list[str]) -> None:
    """The global names a code object and the code nested in it may read."""
    names.extend(code.co_names)
    for const in code.co_consts:
        if type(const) is types.CodeType:
            _names_of(const, names)


def _storage_of(tensor: Any, found: Found) -> None:
    with _no_torch_function():
        try:
            storage = _untyped_storage(tensor)
            found[_data_ptr(storage)] = _nbytes(storage)
        except (RuntimeError, TypeError, NotImplementedError):  # no storage of its own
            pass


def _count(reach: _Reach, found: Found) -> None:
    """Add the memory of what a walk reached: tensors' storages, NumPy arrays' buffers
    (an array that views another's memory, or a tensor's, counts as that memory once)."""
    for tensor in reach.tensors:
        _storage_of(tensor, found)
    for a in reach.arrays:
        if _nd_base(a) is None:
            found[int(_nd_interface(a)["data"][0])] = int(_nd_nbytes(a))
    for buffer in reach.buffers:
        found[id(buffer)] = len(buffer) * (buffer.itemsize if type(buffer) is array.array else 1)


def _saved_variables(node: Any, fields: tuple[str, ...]) -> list[Any]:
    values: list[Any] = []
    try:
        if fields is CUSTOM:
            values.extend(_custom_saved(node))
        else:
            for name in fields:
                value = getattr(node, name)
                values.extend(value if type(value) in (list, tuple) else (value,))
    except RuntimeError:  # freed by a backward pass already: nothing kept
        return []
    return [v for v in values if type(v) is _SAVED]


def _graph_nodes(tensors: Iterable[Any], limit: list[int]) -> list[Any]:
    """Every node reachable from the tensors' ``grad_fn`` through ``next_functions``."""
    nodes, seen = [], set()
    stack = [_grad_fn(t) for t in tensors]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        nodes.append(node)
        limit[0] -= 1
        if limit[0] < 0:
            break
        stack.extend(n for n, _ in _next_functions(node))
    return nodes


def _next_functions(node: Any) -> tuple[tuple[Any, int], ...]:
    if isinstance(node, _FUNCTION_BASE):
        return tuple(_custom_next(node))
    return tuple(node.next_functions)


def _tensors_in(value: Any, depth: int = 0) -> list[Any]:
    """The tensors among a call's arguments (as ``Scenario.call`` copies them in)."""
    t = type(value)
    if torch is not None and issubclass(t, _BASE):
        return [value]
    if depth < 4 and (t is list or t is tuple):
        return [x for v in value for x in _tensors_in(v, depth + 1)]
    if depth < 4 and t is dict:
        return [x for v in dict.values(value) for x in _tensors_in(v, depth + 1)]
    return []


def kept_by_graph(
    calls: Sequence[tuple[Any, Any]],
    namespace: dict[str, Any] | None = None,
    own_unpack: Any = None,
) -> tuple[Found, str | None]:
    """What autograd's graph keeps for backward from the calls made in a block: each
    call's ``(arguments, result)``. The graph the arguments already had is not the
    calls' doing and is left out. ``namespace`` is the submission's globals (what its
    hooks may name), ``own_unpack`` the unpack hook of the harness's own pair, which
    packs a tensor as itself. Returns ``({storage address: bytes}, None)``, or a reason
    why the graph could not be measured in place of None."""
    return _GraphReader(namespace, own_unpack).read(calls)


class _GraphReader:
    """One reading of a graph: what it found, and what it has looked at already."""

    def __init__(self, namespace: dict[str, Any] | None, own_unpack: Any) -> None:
        self.namespace = namespace
        self.own_unpack = own_unpack
        self.budget = [MAX_OBJECTS]
        self.found: Found = {}
        self.seen: set[int] = set()
        self.alive: list[Any] = []  # what was seen, so that no id is reused meanwhile

    def read(self, calls: Sequence[tuple[Any, Any]]) -> tuple[Found, str | None]:
        results = _Reach(self.namespace, self.budget)
        before: set[int] = set()
        made: set[int] = set()  # nodes of the graph of earlier calls' results
        roots: list[Any] = []
        for i, (arguments, result) in enumerate(calls):
            earlier = _graph_nodes(_tensors_in(arguments), self.budget)
            self.alive.extend(earlier)
            before.update(id(n) for n in earlier if id(n) not in made)
            results.walk([result])
            for tensor in results.tensors:  # hooks on a result may hold a graph too
                hooks = _tensor_hooks(tensor)
                if hooks is not None:
                    results.walk([hooks])
            if i < len(calls) - 1:  # a later call may be given this one's result
                now = _graph_nodes(results.tensors, self.budget)
                self.alive.extend(now)
                made.update(id(n) for n in now if id(n) not in before)
            roots.extend(results.tensors)
            results.tensors.clear()
        self.seen.update(before)
        stack = [_grad_fn(t) for t in roots] + results.nodes
        while stack and self.budget[0] >= 0:
            node = stack.pop()
            if node is None or id(node) in self.seen:
                continue
            self.seen.add(id(node))
            self.alive.append(node)
            self.budget[0] -= 1
            fields = _node_fields(type(node))
            if fields is None:
                continue
            for saved in _saved_variables(node, fields):
                self.count(saved)
            if fields is CUSTOM:
                # A custom Function's ctx: its attributes may hold tensors whose own
                # graph is kept for backward (ctx.out = a result made under enable_grad),
                # and so may what its methods reach (their closures, named globals).
                attributes = _Reach(self.namespace, self.budget)
                attributes.walk(r for r in _get_referents(node) if type(r) is not type)
                function = type(node).__dict__.get("_forward_cls")
                if isinstance(function, type):
                    attributes.walk(r for r in _get_referents(function) if type(r) is dict)
                stack.extend(_grad_fn(t) for t in attributes.tensors)
                stack.extend(attributes.nodes)
            stack.extend(n for n, _ in _next_functions(node))
        if self.budget[0] < 0:
            return self.found, f"not measurable: more than {MAX_OBJECTS} objects to look through"
        return self.found, None

    def count(self, saved: Any) -> None:
        """Add what one saved variable holds."""
        data, hook = _saved_data(saved), _saved_unpack_hook(saved)
        if data is None:
            return  # freed
        if hook is None or (hook is self.own_unpack and issubclass(type(data), _BASE)):
            _storage_of(data, self.found)  # the saved variable holds the tensor itself
            return
        frame = _checkpoint_frame(hook, data)
        if frame is not None:
            # Inside a checkpointed region: rebuilt by backward, held by nobody now. The
            # checkpoint keeps its inputs instead, saved as it entered the region.
            if id(frame) not in self.seen:
                self.seen.add(id(frame))
                self.alive.append(frame)
                for arg in vars(frame).get("saved_args", ()):
                    if type(arg) is _SAVED:
                        self.count(arg)
            return
        # Packed by hooks: whatever the packed value and the unpack hook refer to is held.
        packed = _Reach(self.namespace, self.budget)
        packed.walk([data, hook])
        _count(packed, self.found)


def _checkpoint_frame(hook: Any, data: Any) -> Any:
    """The frame of the ``torch.utils.checkpoint`` region that packed ``data``, or None
    when the hooks are not checkpoint's."""
    if type(hook) is not types.FunctionType or type(data) is not _CHECKPOINT_HOLDER:
        return None
    if _fn_code(hook) not in _CHECKPOINT_UNPACK:
        return None
    for cell in _fn_closure(hook) or ():
        try:
            contents = cell.cell_contents
        except ValueError:
            continue
        if type(contents) is _CHECKPOINT_FRAME:
            return contents
    return None


def start_tracing() -> tuple[bool, Any]:
    """Trace allocations from now on, with no trace of earlier ones. Returns whether
    tracing was started here, and a sentinel whose trace proves, at the end, that
    nothing stopped or reset the tracing meanwhile."""
    started = not _tm_is_tracing()
    if started:
        _tm_start(1)
    _tm_clear()
    return started, bytearray(64)


def held_since(started: bool, sentinel: Any, floor: int = PYTHON_FLOOR) -> int | str:
    """Bytes allocated since :func:`start_tracing` and still held: every NumPy buffer,
    and Python's own allocations when they reach ``floor`` bytes. Stops the tracing when
    ``start_tracing`` started it."""
    try:
        if not _tm_is_tracing() or _tm_traceback_of(sentinel) is None:
            return "not measurable: your code stopped or reset tracemalloc"
        _collect(1)  # young reference cycles are not memory anyone holds
        numpy = python = 0
        for domain, size, *_ in _tm_traces():
            if domain == NUMPY_DOMAIN:
                numpy += size
            elif domain == 0:
                python += size
        return numpy + (python if python >= floor else 0)
    finally:
        if started and _tm_is_tracing():
            _tm_stop()


__all__ = ["PYTHON_FLOOR", "held_since", "kept_by_graph", "start_tracing"]
