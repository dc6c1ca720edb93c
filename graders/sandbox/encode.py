"""Encoding of observed values into the wire format, inside the sandbox.

The values come from learner code, so the encoder trusts nothing about them: it checks
exact types (an ndarray subclass is read through ``np.ndarray`` itself; a tensor is read
only when it is a ``torch.Tensor`` or ``nn.Parameter``, with ``__torch_function__``
disabled and its autograd flags read through torch's C descriptors, so a learner's
subclass is reported as an object of its own type), bounds depth and size, and never
calls a learner-defined ``__eq__``, ``__len__`` or ``__iter__``: containers, subclasses
included, are read through the builtin types' own methods.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from graders.sandbox.records import Calls, Kept, read_kept, read_record
from graders.sandbox.wire import MAX_DEPTH, MAX_NODES, WIRE_DTYPES, WireError

try:  # the NumPy track's worker has torch too, but the format must not require it
    import torch
except ImportError:  # pragma: no cover - torch is a runtime dependency
    torch = None  # type: ignore[assignment]

# Bound methods taken at import, before any learner code can replace module attributes.
_nd_view = np.ndarray.view
_nd_tobytes = np.ndarray.tobytes
_nd_astype = np.ndarray.astype
_ascontiguous = np.ascontiguousarray
_isfinite = math.isfinite

_REPR_LIMIT = 200
# JSON bytes a node takes, at least (its punctuation), and a container's or array's tags.
_NODE_TEXT = 4
_TAG_TEXT = 40

if torch is not None:
    # A tensor's autograd flags, read through torch's own C descriptors: a subclass's
    # Python properties cannot answer in their place.
    _BASE = torch._C.TensorBase
    _requires_grad = _BASE.__dict__["requires_grad"].__get__
    _grad_fn = _BASE.__dict__["grad_fn"].__get__
    _is_leaf = _BASE.__dict__["is_leaf"].__get__
    # The tensor types the encoder reads; any other subclass is reported as an object.
    _TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)


class Encoder:
    """Encode one observation tree; the raw array bytes collect in ``chunks``.

    ``max_bytes`` bounds the array bytes (the frame's body), ``max_text`` the JSON text
    of the tree (strings and numbers, in the frame's header), so a value too large to
    check fails with a plain message rather than at the server's frame limits."""

    def __init__(self, max_bytes: int, max_text: int = 4 << 20) -> None:
        self.max_bytes = max_bytes
        self.max_text = max_text
        self.size = 0
        self.text = 0
        self.nodes = 0
        self.chunks: list[bytes] = []

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)

    def value(self, v: Any, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise WireError(f"it holds more than {MAX_NODES} values")
        if depth > MAX_DEPTH:
            raise WireError(f"it is nested more than {MAX_DEPTH} levels deep")
        t = type(v)
        self._count_text(_NODE_TEXT)
        if v is None or t is bool or t is str:
            if t is str:
                v = v[:100_000]
                # JSON escapes a character outside ASCII as up to 12 bytes.
                self._count_text(len(v) if v.isascii() else 12 * len(v))
            return v
        if t is int:
            if v.bit_length() > 256:
                return {"t": "object", "type": "int", "repr": "a very large integer"}
            self._count_text(v.bit_length() // 3 + 1)  # decimal digits, at most
            return v
        if t is float:
            self._count_text(24)
            return v if _isfinite(v) else {"t": "float", "v": repr(v)}
        self._count_text(_TAG_TEXT)
        if t is Calls:
            phase, layers, inputs, randoms, more = read_record(v)
            self._count_text(len(phase) + 30 * len(layers))
            return {
                "t": "calls",
                "phase": phase,
                "v": list(layers),
                "inputs": list(inputs),
                "randoms": list(randoms),
                "more": more,
            }
        if t is Kept:
            return read_kept(v)
        # Subclasses (an OrderedDict, a defaultdict, a namedtuple) are read as what they
        # are built on, through the base type's own C methods: a learner's override of
        # __iter__ or items() is never called, and a correct solution that happens to
        # build its dict another way is not refused.
        if issubclass(t, list | tuple):
            base = list if issubclass(t, list) else tuple
            return {
                "t": "list" if base is list else "tuple",
                "v": [self.value(x, depth + 1) for x in base.__iter__(v)],
            }
        if issubclass(t, dict):
            items = list(dict.items(v))
            return {
                "t": "dict",
                "k": [self.key(k, depth + 1) for k, _ in items],
                "v": [self.value(x, depth + 1) for _, x in items],
            }
        if isinstance(v, np.ndarray):
            return self.array(_nd_view(v, np.ndarray))
        if isinstance(v, np.generic) and type(v).__module__ == "numpy":
            node = self.array(np.asarray(v))
            node["scalar"] = True
            return node
        if torch is not None and t in _TENSOR_TYPES:
            return self.tensor(v)
        return {"t": "object", "type": _type_name(v), "repr": _safe_repr(v)}

    def key(self, k: Any, depth: int) -> Any:
        """A dict key: a NumPy scalar key (``np.int64(3)`` from ``np.unique``) is the
        Python number it equals and hashes as; a key the server could not hash (a
        tensor, another object) is reported by its type."""
        t = type(k)
        if issubclass(t, np.generic) and t.__module__ == "numpy" and k.dtype.kind in "biuf":
            return self.value(k.item(), depth)
        if k is None or t in (bool, int, float, str):
            return self.value(k, depth)
        if t is tuple:
            return {"t": "tuple", "v": [self.key(x, depth + 1) for x in k]}
        self.nodes += 1
        return {"t": "object", "type": _type_name(k), "repr": _safe_repr(k)}

    def array(self, a: np.ndarray) -> dict[str, Any]:
        known = WIRE_DTYPES.get(a.dtype)
        if known is None:
            return {"t": "object", "type": f"ndarray of {a.dtype.name}", "repr": ""}
        name, little = known
        self._reserve(a.nbytes)  # before copying: a huge array must not exhaust memory first
        data = _nd_tobytes(_ascontiguous(_nd_astype(a, little)))
        offset = self._add(data)
        return {"t": "ndarray", "dtype": name, "shape": list(a.shape), "buf": [offset, len(data)]}

    def tensor(self, t: Any) -> dict[str, Any]:
        with torch._C.DisableTorchFunction():
            plain = torch.Tensor.detach(t)
            torch_dtype = str(plain.dtype).removeprefix("torch.")
            if plain.dtype == torch.bfloat16:
                plain = plain.float()
            if plain.is_sparse or plain.device.type != "cpu":
                plain = plain.to_dense().cpu()
            node = self.array(torch.Tensor.numpy(plain.resolve_conj().resolve_neg()))
            grad_fn = _grad_fn(t)
            node.update(
                t="tensor",
                torch_dtype=torch_dtype,
                requires_grad=bool(_requires_grad(t)),
                grad_fn=None if grad_fn is None else type(grad_fn).__name__[:200],
                is_leaf=bool(_is_leaf(t)),
            )
            return node

    def _count_text(self, nbytes: int) -> None:
        self.text += nbytes
        if self.text > self.max_text:
            raise WireError(f"its text takes more than {self.max_text // (1024 * 1024)} MiB")

    def _reserve(self, nbytes: int) -> None:
        if self.size + nbytes > self.max_bytes:
            raise WireError(f"it takes more than {self.max_bytes // (1024 * 1024)} MiB")

    def _add(self, data: bytes) -> int:
        self._reserve(len(data))
        offset = self.size
        self.size += len(data)
        self.chunks.append(data)
        return offset


def _type_name(v: Any) -> str:
    t = type(v)
    module = getattr(t, "__module__", "") or ""
    name = getattr(t, "__qualname__", "?")
    return name if module in ("builtins", "__main__", "solution") else f"{module}.{name}"


def _safe_repr(v: Any) -> str:
    try:
        text = object.__repr__(v) if not isinstance(v, int | float | complex) else repr(v)
    except Exception:
        text = "?"
    return text[:_REPR_LIMIT]
