"""Call records of counting layers, kept where learner code cannot reach them by name.

A test holds a :class:`Calls` *handle* (``with recording(t, "backward") as calls``) and
returns it as an observation; the layers that ran are read from the recorder only when
the observations are encoded. The handle is an immutable tuple of the phase and a key,
and the records live in a closure of this module's functions, so neither walking up to a
test's frame and editing its locals nor patching an attribute fills or rewrites a record.
What remains (introspecting the closures of harness functions, or ctypes) is listed in
docs/security.md under what an in-process harness cannot stop.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from graders.sandbox.wire import MAX_CALLS

try:
    import torch
except ImportError:  # pragma: no cover - torch is a runtime dependency
    torch = None  # type: ignore[assignment]


class Calls(tuple[Any, ...]):
    """A handle on one recording: ``(phase, key)``. It holds no data of the record."""

    __slots__ = ()

    @property
    def phase(self) -> str:
        return str(tuple.__getitem__(self, 0))

    def __repr__(self) -> str:
        return f"<calls during {self.phase}>"


# phase, layers in call order, a digest of each call's input, a digest of the random
# state each torch module ran with (empty for plain functions), calls past MAX_CALLS
Record = tuple[str, tuple[int, ...], tuple[int, ...], tuple[int, ...], int]


def digest(value: Any) -> int:
    """A 32-bit digest of a layer's input: its dtype, shape and bytes (0 for anything
    else). The reference and a correct submission feed every layer the same values, bit
    for bit; a submission that computes its answer elsewhere and calls the counting
    layers only for show feeds them other values, and the record shows it."""
    if type(value) is tuple and len(value) == 1:  # a module hook's positional arguments
        value = value[0]
    if torch is not None and isinstance(value, torch.Tensor):
        with torch._C.DisableTorchFunction():
            plain = torch.Tensor.detach(value)
            if plain.dtype == torch.bfloat16 or plain.device.type != "cpu" or plain.is_sparse:
                return 0
            value = torch.Tensor.numpy(plain.resolve_conj().resolve_neg())
    if not isinstance(value, np.ndarray):
        return 0
    array = np.ndarray.view(value, np.ndarray)
    head = f"{array.dtype.str}{array.shape}".encode()
    return zlib.crc32(np.ascontiguousarray(array).tobytes(), zlib.crc32(head))


# Taken at import, before learner code runs: the state dropout and torch.rand draw from.
_RANDOM_STATE = torch.default_generator.get_state if torch is not None else None


def random_digest() -> int:
    """A 32-bit digest of torch's random state on the CPU: a layer rebuilt in backward
    that draws (dropout) must run with the state it ran with in the forward pass."""
    if _RANDOM_STATE is None:
        return 0
    return zlib.crc32(np.asarray(_RANDOM_STATE()).tobytes())


def _recorder() -> tuple[
    Callable[[str], Calls],
    Callable[[Calls], None],
    Callable[[int, Any, bool | None], None],
    Callable[[Calls], Record],
]:
    records: dict[int, tuple[str, list[int], list[int], list[int], list[int]]] = {}
    active: list[int] = []
    keys = itertools.count(1)

    def start(phase: str) -> Calls:
        key = next(keys)
        records[key] = (str(phase), [], [], [], [0])
        active.append(key)
        return Calls((str(phase), key))

    def stop(calls: Calls) -> None:
        key = tuple.__getitem__(calls, 1)
        if key in active:
            active.remove(key)

    def note(index: int, given: Any = None, random: bool | None = None) -> None:
        """A layer's call: ``random`` None for a function (no random state noted), True
        for a module that may draw (the state's digest), False for one that never does
        (0: its state cannot matter, and is not read)."""
        if not active:
            return
        seen = digest(given)
        state = None if random is None else random_digest() if random else 0
        for key in active:
            _, layers, inputs, randoms, more = records[key]
            if len(layers) < MAX_CALLS:
                layers.append(index)
                inputs.append(seen)
                if state is not None:
                    randoms.append(state)
            else:  # bounded: a runaway loop must not grow the result without end
                more[0] += 1

    def read(calls: Calls) -> Record:
        phase, layers, inputs, randoms, more = records[tuple.__getitem__(calls, 1)]
        # Digests of the random state only when every call noted one.
        states = tuple(randoms) if len(randoms) == len(layers) else ()
        return phase, tuple(layers), tuple(inputs), states, more[0]

    return start, stop, note, read


start_recording, stop_recording, note_call, read_record = _recorder()


class Kept(tuple[Any, ...]):
    """A handle on what autograd kept for backward during a block: ``(key,)``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<tensors kept for backward>"


def _keeper() -> tuple[
    Callable[[frozenset[int]], tuple[Kept, Callable[[Any], Any]]],
    Callable[[Kept, dict[int, int], str | None], None],
    Callable[[Kept], int | str],
]:
    records: dict[int, dict[int, int]] = {}  # key -> {storage address: bytes}
    exclusions: dict[int, frozenset[int]] = {}
    problems: dict[int, str] = {}  # key -> why the memory could not be measured
    keys = itertools.count(1)

    def start(exclude: frozenset[int] = frozenset()) -> tuple[Kept, Callable[[Any], Any]]:
        key = next(keys)
        storages: dict[int, int] = {}
        records[key] = storages
        exclusions[key] = exclude

        def pack(tensor: Any) -> Any:
            # Read through torch.Tensor itself: a learner's subclass cannot answer for it.
            with torch._C.DisableTorchFunction():
                storage = torch.Tensor.untyped_storage(tensor)
                # A storage saved by several tensors (views) is memory once.
                if storage.data_ptr() not in exclude:
                    storages[storage.data_ptr()] = storage.nbytes()
            return tensor

        return Kept((key,)), pack

    def add(kept: Kept, found: dict[int, int], problem: str | None = None) -> None:
        """Count memory found another way (the graph itself, tracemalloc) in the record:
        storage addresses already there count once."""
        key = tuple.__getitem__(kept, 0)
        exclude = exclusions[key]
        records[key].update((a, n) for a, n in found.items() if a not in exclude)
        if problem is not None:
            problems.setdefault(key, problem)

    def read(kept: Kept) -> int | str:
        key = tuple.__getitem__(kept, 0)
        if key in problems:
            return problems[key]
        return sum(records[key].values())

    return start, add, read


start_keeping, add_kept, read_kept = _keeper()
