"""Test helpers for the exercises about layers, activation memory and checkpointing.

Tests of other topics never need them, so they are not methods of ``t``: a test imports
what it uses and passes ``t`` to the measuring blocks::

    from graders.sandbox.checkpointing import counting_layers, recording

    @test("recomputes only the layers it must", hint=2)
    def recompute(t):
        layers = counting_layers([np.tanh, np.sin, np.cos])
        with recording(t, "recompute") as calls:
            t.call("checkpoint_recompute", layers, saved, [1], 2)
        return {"calls during recompute": calls}

A record of layer calls (:class:`~graders.sandbox.records.Calls`) is compared in the
server by ``graders.grading.layer_calls``; the bytes a block measured
(:class:`~graders.sandbox.records.Kept`) are a number like any other.

This module runs inside the sandbox; it must stay free of server code.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

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
from graders.sandbox.testing import _code_given, shown_as

if TYPE_CHECKING:
    from graders.sandbox.testing import Scenario

try:
    import torch
except ImportError:  # pragma: no cover - torch is a runtime dependency
    torch = None  # type: ignore[assignment]

__all__ = [
    "counting_layers",
    "counting_modules",
    "held_in_python",
    "kept_for_backward",
    "recording",
]


def counting_layers(fns: Sequence[Callable[[Any], Any]]) -> list[Callable[[Any], Any]]:
    """Wrap plain functions as layers that count their calls (``layer.calls``, the
    total; ``layer.index``, the position) and report them to the recordings open.

    Examples
    --------
    >>> layers = counting_layers([lambda a: a * 2, lambda a: a + 1])
    """
    layers = [_counting_layer(fn, i) for i, fn in enumerate(fns)]
    code = _code_given(fns)
    return shown_as(layers, code) if code is not None else layers


def counting_modules(modules: Any) -> Any:
    """Make each module of a ``torch.nn.ModuleList`` report its forward calls, however
    they are made (``layer(h)``, ``layer.forward(h)``, through a checkpoint).

    The modules stay ordinary modules (parameters, ``.grad``, hooks all work).

    Examples
    --------
    >>> layers = counting_modules(nn.ModuleList(nn.Linear(4, 4) for _ in range(6)))
    """
    for i, module in enumerate(modules):
        module.forward = _counting_forward(module, i)
    return modules


@contextlib.contextmanager
def recording(t: Scenario, phase: str) -> Iterator[Calls]:
    """Record which counting layers run inside the ``with`` block, in order.

    Examples
    --------
    >>> with recording(t, "recompute") as calls:
    ...     t.call("checkpoint_recompute", layers, saved, [1], 2)
    >>> return {"calls during recompute": calls}
    """
    calls = start_recording(phase)
    try:
        yield calls
    finally:
        stop_recording(calls)
        # The call made inside the block, or else the one the block goes on with (a
        # backward pass through what the last call returned).
        t._from_last_call(calls)


@contextlib.contextmanager
def kept_for_backward(t: Scenario, parameters_of: Any = None) -> Iterator[Kept]:
    """Measure the bytes of the activations autograd keeps for backward in the block.

    Inside a ``torch.utils.checkpoint`` region the checkpoint's own hooks take over and
    nothing is counted, which is the point of checkpointing: the observation is the
    activation memory held outside checkpointed regions (a checkpoint keeps its inputs
    there). Storage shared by several saved tensors counts once; the parameters of
    ``parameters_of`` (a module) do not count, however a solution hands them to autograd.

    It is seen twice and counted once: through saved-tensor hooks of the harness while
    the block runs, and, when it ends, in the graph of what the block's calls returned
    (``memory.kept_by_graph``), where the learner's own saved-tensor hooks, which take
    over from the harness's, cannot hide it.

    Examples
    --------
    >>> with kept_for_backward(t, layers) as kept:
    ...     out = t.call("forward_with_checkpointing", layers, x, 2)
    >>> return {"bytes kept for backward outside checkpoints": kept}
    """
    exclude = set()
    if parameters_of is not None:
        exclude = {p.untyped_storage().data_ptr() for p in parameters_of.parameters()}
    kept, pack = start_keeping(frozenset(exclude))
    calls: list[tuple[Any, Any]] = []
    t._watching.append(calls)
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, _identity):
            yield kept
    finally:
        t._watching[:] = [w for w in t._watching if w is not calls]
    add_kept(kept, *kept_by_graph(calls, t._namespace, _identity))


@contextlib.contextmanager
def held_in_python(t: Scenario) -> Iterator[Kept]:
    """Measure the bytes of NumPy arrays and other Python objects made in the block and
    still held when it ends, wherever they are kept (``ctx``, a global, a closure): what
    no torch storage shows, such as ``ctx.a = a.numpy().copy()``.

    NumPy's buffers count exactly; Python's other allocations (lists, bytes, objects)
    only once they reach ``memory.PYTHON_FLOOR`` (32 KiB) together, since any call leaves
    a few KiB behind. Measured with ``tracemalloc``: a block that runs under it is
    slower, so keep it to the calls that need it.

    Examples
    --------
    >>> with held_in_python(t) as held:
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


def _counting_layer(fn: Callable[[Any], Any], index: int) -> Callable[[Any], Any]:
    """A layer that records its calls. The function it wraps is held by a closure, not an
    attribute: there is no ``layer._fn`` through which to run it uncounted."""

    def layer(x: Any) -> Any:
        layer.calls += 1  # type: ignore[attr-defined]
        note_call(index, x, None)
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
    draws = may_draw(module)

    def counted_forward(*args: Any, **kwargs: Any) -> Any:
        # A module that may draw (dropout) notes the random state it runs with.
        note_call(index, args, draws)
        return forward(*args, **kwargs)

    return counted_forward


def may_draw(module: Any) -> bool:
    """Whether a module may draw random numbers: it holds a dropout or an RReLU, or a
    module of a class not from ``torch.nn`` (a test author's own). The others (Linear,
    Tanh, Sequential, ...) never do, and reading the random state costs about 10 µs a
    call (records.random_digest)."""
    for part in module.modules():
        kind = type(part)
        if isinstance(part, torch.nn.modules.dropout._DropoutNd | torch.nn.RReLU):
            return True
        if not kind.__module__.startswith("torch.nn."):
            return True
    return False


def _identity(value: Any) -> Any:
    return value
