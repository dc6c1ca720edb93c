"""Comparison of a submission's observations with the reference's, in the server.

All comparison logic lives here. :func:`compare` walks the expected value and returns
the first difference as a message that names the observation, the rule, what was got and
(as far as the test's ``reveal`` option allows) what was expected::

    saved: keys differ — expected [-1, 1, 3], got [1, 3]
    calls during recompute: layers 0, 1, 2 ran; only layer 2 should run
    output: requires_grad differs — expected False, got True

A table of cases (``t.cases`` in graders.sandbox.testing) arrives as one dict of observations per
case, under a key ``case 'LABEL'``; inside it, observations name themselves as at the top
(``case 'no checkpoint': saved: keys differ ...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from graders.grading import layer_calls
from graders.sandbox.wire import WIRE_DTYPES, ArrayObs, CallsObs, ObjectObs, TensorObs

Reveal = Literal["full", "summary", "none"]
_KIND_NAMES = {
    "f": "a float",
    "i": "an integer",
    "u": "an unsigned integer",
    "b": "a bool",
    "c": "a complex",
}
_MAX_TEXT = 300


@dataclass(frozen=True)
class Tolerance:
    rtol: float = 1e-5
    atol: float = 1e-8
    exact_dtype: bool = False
    reveal: Reveal = "summary"
    # (dtype name, rtol, atol): the tolerance of values of that dtype, where it differs
    by_dtype: tuple[tuple[str, float, float], ...] = ()

    def of(self, dtype: str) -> tuple[float, float]:
        """(rtol, atol) for values of ``dtype`` (a Python float is a float64)."""
        for name, rtol, atol in self.by_dtype:
            if name == dtype:
                return rtol, atol
        return self.rtol, self.atol


def compare(expected: Any, got: Any, tol: Tolerance, path: str = "") -> str | None:
    """None when ``got`` matches ``expected``; otherwise the first difference."""
    return _Comparer(tol).value(expected, got, path)


# The key of a case's observations: ``case`` and the label's repr (testing.case_key).
_CASE_KEY = re.compile(r"case (?:'.*'|\".*\")", re.DOTALL)


def case_label(key: Any) -> str | None:
    """``key`` itself when it is the key of a case of a table (``case 'LABEL'``); else None."""
    return key if isinstance(key, str) and _CASE_KEY.fullmatch(key) else None


def differences(expected: Any, got: Any, tol: Tolerance) -> list[tuple[str | None, str]]:
    """Every observation of a test that differs, as (observation name, message): what the
    learner's code raised first (an exception explains the records and values after it),
    then the call records (which layers ran explains a wrong value, rarely the reverse).

    Each observation of a case of a table is listed under the case's key, its message
    naming the observation alone (the case leads the message, see graders.grading.feedback)."""
    comparer = _Comparer(tol)
    if not (isinstance(expected, dict) and isinstance(got, dict) and set(expected) == set(got)):
        problem = comparer.value(expected, got, "")
        return [(None, problem)] if problem else []
    keys = sorted(expected, key=lambda k: not isinstance(expected[k], CallsObs))
    found: list[tuple[str | None, str]] = []
    for key in keys:
        if case_label(key) and isinstance(expected[key], dict):
            found += [(key, problem) for _, problem in differences(expected[key], got[key], tol)]
            continue
        path = key if isinstance(key, str) else f"[{key!r}]"
        problem = comparer.value(expected[key], got[key], path)
        if problem:
            found.append((key if isinstance(key, str) else None, problem))
    return sorted(found, key=lambda item: not raised(item[1]))


# A test records an exception of the learner's code as an observation "raised Kind: text"
# (a string the reference's run never gives where the learner's differs).
_RAISED = re.compile(r" — (?:expected .* )?got (?:'raised |\"raised )")


def raised(problem: str) -> bool:
    """Whether ``problem`` is an observation that says the learner's code raised."""
    return bool(_RAISED.search(problem.split("\n", 1)[0]))


class _Comparer:
    def __init__(self, tol: Tolerance) -> None:
        self.tol = tol
        self.full = tol.reveal == "full"
        self.summary = tol.reveal in ("full", "summary")

    # --- dispatch ---

    def value(self, exp: Any, got: Any, path: str) -> str | None:
        if isinstance(exp, dict) and not isinstance(got, dict) and not path:
            return self.dict(exp, got, path)  # the observation dict itself
        kind_exp, kind_got = kind_of(exp), kind_of(got)
        if kind_exp != kind_got:
            return f"{path or 'result'}: expected {kind_exp}, got {kind_got}"
        if not path and not isinstance(exp, dict):
            path = "result"  # a bare value; a dict's keys name themselves
        if _is_number(exp):  # before arrays: a NumPy scalar and a float are both numbers
            return self.number(exp, got, path)
        if isinstance(exp, TensorObs):
            return self.tensor(exp, got, path)
        if isinstance(exp, ArrayObs):
            return self.array(exp.values, got.values, path)
        if isinstance(exp, dict):
            return self.dict(exp, got, path)
        if isinstance(exp, list | tuple):
            return self.sequence(exp, got, path)
        if isinstance(exp, CallsObs):
            return self.calls(exp, got, path)
        if isinstance(exp, ObjectObs):
            return None  # same type name (kind_of includes it); values are opaque
        if exp != got:
            return self._differs(path, "value differs", repr(exp), repr(got))
        return None

    # --- containers ---

    def dict(self, exp: dict[Any, Any], got: Any, path: str) -> str | None:
        if not isinstance(got, dict):
            return f"{path or 'result'}: expected a dict, got {kind_of(got)}"
        if set(exp) != set(got):
            exp_keys, got_keys = _sorted_keys(exp), _sorted_keys(got)
            where = path or "result"
            if self.summary:
                return f"{where}: keys differ — expected {exp_keys}, got {got_keys}"
            return f"{where}: keys differ — got {got_keys}"
        for key in exp:
            if not path and isinstance(key, str):
                inner = key
            elif case_label(path) and isinstance(key, str):
                inner = f"{path}: {key}"  # a case's observations name themselves
            else:
                inner = _index(path, key)
            problem = self.value(exp[key], got[key], inner)
            if problem:
                return problem
        return None

    def sequence(self, exp: list[Any] | tuple[Any, ...], got: Any, path: str) -> str | None:
        if len(exp) != len(got):
            if not exp and self.summary and _plain(got):  # names where none belongs
                return f"{path}: {_clip(', '.join(got))} — none expected"
            shown = str(len(got))
            if self.summary and _plain(got):  # what was got is the learner's own: say it
                shown += f" ({_clip(repr(list(got)))})"
            return self._differs(path, "length differs", str(len(exp)), shown, shape=True)
        for i, (e, g) in enumerate(zip(exp, got, strict=True)):
            problem = self.value(e, g, f"{path}[{i}]")
            if problem:
                return problem
        return None

    def calls(self, exp: CallsObs, got: CallsObs, path: str) -> str | None:
        return layer_calls.difference(exp, got, path, full=self.full, summary=self.summary)

    # --- arrays and tensors ---

    def tensor(self, exp: TensorObs, got: TensorObs, path: str) -> str | None:
        if self.tol.exact_dtype and exp.dtype != got.dtype:
            return f"{path}: dtype differs — expected {exp.dtype}, got {got.dtype}"
        problem = self.array(exp.values, got.values, path, exp.dtype, got.dtype)
        if problem:
            return problem
        if exp.requires_grad != got.requires_grad:
            return (
                f"{path}: requires_grad differs — expected {exp.requires_grad}, "
                f"got {got.requires_grad}"
            )
        if (exp.grad_fn is None) != (got.grad_fn is None):
            if exp.grad_fn is None:
                return (
                    f"{path}: expected a tensor with no grad_fn (no autograd graph recorded), "
                    f"got one with grad_fn={got.grad_fn}"
                )
            return (
                f"{path}: expected a tensor attached to the autograd graph (with a grad_fn), "
                "got one with grad_fn=None"
            )
        return None

    def array(
        self,
        exp: np.ndarray,
        got: np.ndarray,
        path: str,
        exp_dtype: str | None = None,
        got_dtype: str | None = None,
    ) -> str | None:
        exp_dtype = exp_dtype or _dtype_name(exp.dtype)
        got_dtype = got_dtype or _dtype_name(got.dtype)
        if exp.shape != got.shape:
            return f"{path}: shape differs — expected {_shape(exp.shape)}, got {_shape(got.shape)}"
        if self.tol.exact_dtype and exp_dtype != got_dtype:
            return f"{path}: dtype differs — expected {exp_dtype}, got {got_dtype}"
        if _kind(exp.dtype) != _kind(got.dtype):
            return (
                f"{path}: dtype differs — expected {_KIND_NAMES.get(_kind(exp.dtype), exp_dtype)} "
                f"array, got {got_dtype}"
            )
        # The usual case, a submission that matches bit for bit, without the float copies.
        if exp.dtype == got.dtype and np.array_equal(exp, got):
            return None
        bad = ~self._close(exp, got, exp_dtype)
        if not bad.any():
            return None
        count = int(bad.sum())
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        index = where[0] if len(where) == 1 else where
        if exp.ndim == 0:
            return self._differs(path, "value differs", _fmt(exp, got), _fmt(got, exp))
        if self.full and exp.size <= 12:
            return f"{path}: values differ — expected {_fmt(exp, got)}, got {_fmt(got, exp)}"
        noun = "position" if exp.size == 1 else "positions"
        head = f"{path}: values differ at {count} of {exp.size} {noun}"
        if self.full:
            e, g = exp[where], got[where]
            return f"{head}; first at {index}: expected {_fmt(e, g)}, got {_fmt(g, e)}"
        if self.summary:
            return f"{head}; first at {index}: got {_fmt(got[where], exp[where])}"
        return f"{path}: values differ"

    def _close(self, exp: np.ndarray, got: np.ndarray, dtype: str) -> np.ndarray:
        if _kind(exp.dtype) in "fc":
            rtol, atol = self.tol.of(dtype)  # the expected value's dtype sets the tolerance
            with np.errstate(all="ignore"):
                return np.isclose(
                    got.astype(np.complex128 if _kind(exp.dtype) == "c" else np.float64),
                    exp.astype(np.complex128 if _kind(exp.dtype) == "c" else np.float64),
                    rtol=rtol,
                    atol=atol,
                    equal_nan=True,
                )
        return np.asarray(exp == got)

    # --- scalars ---

    def number(self, exp: Any, got: Any, path: str) -> str | None:
        e, g = _number(exp), _number(got)
        if isinstance(e, bool) or isinstance(g, bool):
            same = e == g and isinstance(e, bool) == isinstance(g, bool)
        elif isinstance(e, float) or isinstance(g, float):
            dtype = _float_dtype(exp)
            rtol, atol = self.tol.of(dtype)
            with np.errstate(all="ignore"):
                same = bool(np.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True))
        else:
            same = e == g
        return None if same else self._differs(path, "value differs", repr(e), repr(g))

    def _differs(self, path: str, rule: str, exp: str, got: str, shape: bool = False) -> str:
        if self.full or (shape and self.summary):
            return f"{path}: {rule} — expected {_clip(exp)}, got {_clip(got)}"
        if self.summary:
            return f"{path}: {rule} — got {_clip(got)}"
        return f"{path}: {rule}"


# An observation named "saved after the output was changed in place" reads best with the
# key beside the name it indexes: "saved[-1] after the output was changed in place".
_NAMED_INDEX = re.compile(
    r"^([A-Za-z_]\w*(?:\[[^\]]*\])*)( (?:after|before|with|when|during|from|for|of|in|on) .*)$"
)


def _index(path: str, key: Any) -> str:
    match = _NAMED_INDEX.match(path)
    if match:
        return f"{match.group(1)}[{key!r}]{match.group(2)}"
    return f"{path}[{key!r}]"


def kind_of(v: Any) -> str:
    """A learner-readable name for the kind of a decoded value."""
    if v is None:
        return "None"
    if isinstance(v, TensorObs):
        return "a tensor"
    if isinstance(v, ArrayObs):
        if v.scalar:
            return "a bool" if v.values.dtype.kind == "b" else "a number"
        return "an array"
    if isinstance(v, CallsObs):
        return "a record of layer calls"
    if isinstance(v, ObjectObs):
        return f"an object of type {v.type_name}"
    if isinstance(v, bool):
        return "a bool"
    if _is_number(v):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, tuple):
        return "a tuple"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a dict"
    return type(v).__name__


def _is_number(v: Any) -> bool:
    if isinstance(v, ArrayObs):
        return v.scalar and v.values.dtype.kind != "b"
    return isinstance(v, int | float) and not isinstance(v, bool)


def _plain(items: Any) -> bool:
    """A short sequence of names (``t.changed_in_place``): worth showing in a message."""
    return len(items) <= 8 and all(type(v) is str for v in items)


def _float_dtype(v: Any) -> str:
    """The dtype whose tolerance compares the number ``v`` expects: a NumPy scalar's own
    (the decoder gives it as a scalar ArrayObs), else float64 (a Python float is one)."""
    if isinstance(v, ArrayObs) and v.values.dtype.kind == "f":
        return str(v.values.dtype.name)
    if isinstance(v, np.floating):
        return str(v.dtype.name)
    return "float64"


def _number(v: Any) -> Any:
    if isinstance(v, ArrayObs):
        return v.values.item()
    return v


def _kind(dtype: np.dtype) -> str:
    return dtype.kind


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _fmt(a: Any, other: Any = None) -> str:
    arr = np.asarray(a)
    # Enough digits to show a difference: a value 1 ulp off must not print identically.
    precision = 17 if other is not None and _fmt(a) == _fmt(other) else 6
    text = np.array2string(arr, precision=precision, threshold=12, edgeitems=3, separator=", ")
    return _clip(text.replace("\n", ""))


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def _sorted_keys(d: dict[Any, Any]) -> str:
    try:
        keys = sorted(d)
    except TypeError:
        keys = list(d)
    return _clip("[" + ", ".join(repr(k) for k in keys) + "]")


def _dtype_name(dtype: np.dtype[Any]) -> str:
    """``dtype.name``, read from the wire's map (the attribute is computed in Python)."""
    known = WIRE_DTYPES.get(dtype)
    return dtype.name if known is None else known[0]
